package expr

import (
	"encoding/json"

	"github.com/zclconf/go-cty/cty"
)

// SchemaType is the type of a value a JSON Schema describes, as a when
// reads it: an object with its properties' types, a list of its items'
// type, a string, a number or a boolean; any value
// (cty.DynamicPseudoType) where the schema does not say one type.
func SchemaType(schema []byte) cty.Type {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return cty.DynamicPseudoType
	}
	return schemaType(s, 0)
}

// maxSchemaDepth bounds how deep SchemaType reads a schema.
const maxSchemaDepth = 32

func schemaType(s map[string]any, depth int) cty.Type {
	if depth > maxSchemaDepth {
		return cty.DynamicPseudoType
	}
	kind, _ := s["type"].(string)
	switch kind {
	case "string":
		return cty.String
	case "number", "integer":
		return cty.Number
	case "boolean":
		return cty.Bool
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			if t := schemaType(items, depth+1); t != cty.DynamicPseudoType {
				return cty.List(t)
			}
		}
		return cty.List(cty.DynamicPseudoType)
	case "object":
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			return cty.DynamicPseudoType
		}
		attrs := map[string]cty.Type{}
		for name, p := range props {
			ps, _ := p.(map[string]any)
			attrs[name] = schemaType(ps, depth+1)
		}
		return cty.Object(attrs)
	}
	return cty.DynamicPseudoType
}
