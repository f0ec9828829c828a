package views

import (
	"bytes"

	"github.com/cairn-dev/cairn/ir"
)

// EncodedJSON is r's compact JSON document as json.Encoder writes the whole
// of it, the plans withArrays makes: what WriteJSON must write byte for
// byte.
func EncodedJSON(r *Report) ([]byte, error) {
	doc := jsonReport{Version: ReportVersion, Diagnostics: JSONDiagnostics(r.Diagnostics), Plans: []*ir.Plan{}}
	for _, p := range r.Plans {
		doc.Plans = append(doc.Plans, withArrays(p))
	}
	var b bytes.Buffer
	err := writeJSON(&b, doc, false)
	return b.Bytes(), err
}
