package source

// SpanAt is an ir.Span before positions: the value's bytes from Value on
// were copied from the string's raw text from byte File on.
type SpanAt struct {
	Value, File int
}

// StringDecoder decodes the raw text of a string that a front-end's parser
// accepted, recording where each stretch of the value comes from. Each
// front-end embeds it and decodes its own syntax's escapes.
type StringDecoder struct {
	Raw   []byte
	Out   []byte
	Spans []SpanAt
}

// Mark starts a new span: the value's next byte comes from Raw[file].
func (d *StringDecoder) Mark(file int) {
	if n := len(d.Spans); n > 0 && d.Spans[n-1].Value == len(d.Out) {
		d.Spans[n-1].File = file
		return
	}
	d.Spans = append(d.Spans, SpanAt{Value: len(d.Out), File: file})
}
