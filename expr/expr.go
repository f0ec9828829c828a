// Package expr is the language of a step's when: an HCL native expression
// over the steps the step waits for (steps.NAME.outcome,
// steps.NAME.output.PATH) and a for_each's item. It parses one, checks its
// types against the steps' output schemas (for cairn check), evaluates it
// (for cairn run) and writes it as a jq program (for the compiled
// targets), so that every target reads it alike.
package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Functions are the functions a when may call.
var Functions = []string{"contains", "length", "startswith", "endswith"}

// Outcomes are the outcomes steps.NAME.outcome may be, as a step's needs
// leave them when it starts.
var Outcomes = []string{"succeeded", "failed", "skipped"}

// Expr is a parsed when.
type Expr struct {
	// Source is the expression as written.
	Source string
	e      hclsyntax.Expression
}

// Error is a refusal of an expression: its message and the bytes of the
// source it is about, from Start up to End.
type Error struct {
	Start, End int
	Message    string
}

func (e Error) Error() string { return e.Message }

// Parse parses src, the text of a when, as an HCL expression.
func Parse(src string) (*Expr, []Error) {
	e, diags := hclsyntax.ParseExpression([]byte(src), "when", hcl.Pos{Line: 1, Column: 1, Byte: 0})
	var errs []Error
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		r := hcl.Range{}
		if d.Subject != nil {
			r = *d.Subject
		}
		msg := lowerFirst(d.Summary)
		if d.Detail != "" {
			msg += ": " + lowerFirst(d.Detail)
		}
		errs = append(errs, Error{Start: r.Start.Byte, End: max(r.End.Byte, r.Start.Byte+1), Message: lowerFirst(strings.TrimSuffix(msg, "."))})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if strings.TrimSpace(src) == "" {
		return nil, []Error{{Start: 0, End: len(src), Message: "when is empty; write a condition such as steps.NAME.outcome == \"succeeded\""}}
	}
	return &Expr{Source: src, e: e}, nil
}

// Text is the expression on one line, its runs of blanks made one space:
// how a skipped step's cause quotes it.
func (x *Expr) Text() string {
	return strings.Join(strings.Fields(x.Source), " ")
}

// Steps returns the names of the steps the expression reads, in the order
// it first reads them.
func (x *Expr) Steps() []string {
	var names []string
	hclsyntax.VisitAll(x.e, func(n hclsyntax.Node) hcl.Diagnostics {
		if t, ok := n.(*hclsyntax.ScopeTraversalExpr); ok && t.Traversal.RootName() == "steps" && len(t.Traversal) > 1 {
			if a, ok := t.Traversal[1].(hcl.TraverseAttr); ok && !slices.Contains(names, a.Name) {
				names = append(names, a.Name)
			}
		}
		return nil
	})
	return names
}

// ReadsItem reports whether the expression reads item.
func (x *Expr) ReadsItem() bool {
	found := false
	hclsyntax.VisitAll(x.e, func(n hclsyntax.Node) hcl.Diagnostics {
		if t, ok := n.(*hclsyntax.ScopeTraversalExpr); ok && t.Traversal.RootName() == "item" {
			found = true
		}
		return nil
	})
	return found
}

// lowerFirst lowers the first letter of a message, as cairn's are.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// rangeOf is the byte range of an hcl.Range as an Error's.
func errAt(r hcl.Range, format string, args ...any) Error {
	return Error{Start: r.Start.Byte, End: max(r.End.Byte, r.Start.Byte+1), Message: fmt.Sprintf(format, args...)}
}

// typeName words a cty type for a message.
func typeName(t cty.Type) string {
	switch {
	case t == cty.DynamicPseudoType:
		return "any value"
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "a boolean"
	case t.IsListType(), t.IsTupleType(), t.IsSetType():
		return "a list"
	case t.IsObjectType(), t.IsMapType():
		return "an object"
	}
	return t.FriendlyName()
}

// StepAt is the name of the step the expression reads at byte offset:
// the NAME of a steps.NAME… there.
func (x *Expr) StepAt(offset int) (string, bool) {
	name := ""
	hclsyntax.VisitAll(x.e, func(n hclsyntax.Node) hcl.Diagnostics {
		t, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok || t.Traversal.RootName() != "steps" || len(t.Traversal) < 2 {
			return nil
		}
		if r := t.Range(); r.Start.Byte <= offset && offset <= r.End.Byte {
			if a, ok := t.Traversal[1].(hcl.TraverseAttr); ok {
				name = a.Name
			}
		}
		return nil
	})
	return name, name != ""
}
