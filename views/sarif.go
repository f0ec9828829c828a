package views

import (
	"io"
	"path/filepath"

	"github.com/cairn-dev/cairn/ir"
)

// The SARIF version cairn writes and the schema that describes it.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           sarifRuleProps     `json:"properties"`
}

type sarifRuleProps struct {
	Lint bool `json:"lint"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        *int            `json:"ruleIndex,omitempty"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Fixes            []sarifFix      `json:"fixes,omitempty"`
}

type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion           `json:"deletedRegion"`
	InsertedContent *sarifArtifactContent `json:"insertedContent,omitempty"`
}

type sarifArtifactContent struct {
	Text string `json:"text"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifMessage         `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

// sarifLevel maps a severity onto SARIF's levels.
func sarifLevel(s ir.Severity) string {
	switch s {
	case ir.Error:
		return "error"
	case ir.Warning:
		return "warning"
	}
	return "note"
}

// WriteSARIF writes the report's diagnostics as a SARIF 2.1.0 log of one run
// whose driver is cairn, listing tool.Rules. Columns count Unicode code
// points, as cairn's do. Plans are not part of SARIF. It is indented when
// indent is set, as for a person at a terminal.
func (r *Report) WriteSARIF(w io.Writer, tool Tool, indent bool) error {
	driver := sarifDriver{
		Name:           "cairn",
		Version:        tool.Version,
		InformationURI: InformationURI,
		Rules:          []sarifRule{},
	}
	index := map[string]int{}
	for i, rule := range tool.Rules {
		index[rule.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   rule.ID,
			ShortDescription:     sarifMessage{Text: rule.Doc},
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(rule.Severity)},
			Properties:           sarifRuleProps{Lint: rule.Lint},
		})
	}
	results := []sarifResult{}
	for _, d := range r.Diagnostics {
		res := sarifResult{
			RuleID:    d.Rule,
			Level:     sarifLevel(d.Severity),
			Message:   sarifMessage{Text: d.Message},
			Locations: []sarifLocation{},
		}
		if i, ok := index[d.Rule]; ok {
			res.RuleIndex = &i
		}
		if d.Range.File != "" {
			res.Locations = append(res.Locations, sarifLocation{PhysicalLocation: physicalLocation(d.Range)})
		}
		for i, rel := range d.Related {
			if rel.Range.File == "" {
				continue
			}
			id := i
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID:               &id,
				PhysicalLocation: physicalLocation(rel.Range),
				Message:          &sarifMessage{Text: rel.Message},
			})
		}
		for _, f := range d.Fixes {
			res.Fixes = append(res.Fixes, newSARIFFix(f))
		}
		results = append(results, res)
	}
	return writeJSON(w, sarifLog{
		Schema:  SARIFSchema,
		Version: SARIFVersion,
		Runs: []sarifRun{{
			Tool:       sarifTool{Driver: driver},
			ColumnKind: "unicodeCodePoints",
			Results:    results,
		}},
	}, indent)
}

// physicalLocation is r as a SARIF location: its file and, when it has one,
// its region.
func physicalLocation(r ir.Range) sarifPhysicalLocation {
	loc := sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: filepath.ToSlash(r.File)}}
	if r.IsValid() {
		line, col, endLine, endCol := positions(r)
		loc.Region = &sarifRegion{StartLine: line, StartColumn: col, EndLine: endLine, EndColumn: endCol}
	}
	return loc
}

// newSARIFFix is f as a SARIF fix: one artifact change per file, in the
// order its edits first name them, each edit a replacement of its region
// (an empty one for an insertion) by its text (none for a deletion).
func newSARIFFix(f ir.Fix) sarifFix {
	out := sarifFix{Description: sarifMessage{Text: f.Message}, ArtifactChanges: []sarifArtifactChange{}}
	index := map[string]int{}
	for _, e := range f.Edits {
		uri := filepath.ToSlash(e.Range.File)
		i, ok := index[uri]
		if !ok {
			i = len(out.ArtifactChanges)
			index[uri] = i
			out.ArtifactChanges = append(out.ArtifactChanges, sarifArtifactChange{ArtifactLocation: sarifArtifactLocation{URI: uri}})
		}
		line, col, endLine, endCol := positions(e.Range)
		r := sarifReplacement{DeletedRegion: sarifRegion{StartLine: line, StartColumn: col, EndLine: endLine, EndColumn: endCol}}
		if e.NewText != "" {
			r.InsertedContent = &sarifArtifactContent{Text: e.NewText}
		}
		out.ArtifactChanges[i].Replacements = append(out.ArtifactChanges[i].Replacements, r)
	}
	return out
}
