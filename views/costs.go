package views

import (
	"io"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// Costs is what the runs of a CAIRN_HOME spent, by the UTC day they
// started and by process, as `cairn status --costs` shows it. DailyBudget
// is the config's [limits] daily_budget_usd, 0 for none; Today is the
// current UTC day (record.DayFormat).
type Costs struct {
	Days        []record.DaySpending
	DailyBudget float64
	Today       string
}

// WriteText writes the daily budget and what today's runs spent of it,
// when the config sets one, then a table: a line per day and process,
// newest day first, each day ending with its total. A cost is "-" when no
// session reported one, "~$0.0047" when cairn estimated part of it.
func (c *Costs) WriteText(w io.Writer, st Style) error {
	var b strings.Builder
	if c.DailyBudget > 0 {
		spent := ir.Usage{}
		for _, d := range c.Days {
			if d.Day == c.Today {
				spent = d.Usage
			}
		}
		text := spent.CostText()
		if text == "-" {
			text = ir.FormatCost(0)
		}
		b.WriteString(st.paint(ansiBold, "daily budget") + " " + ir.FormatUSD(c.DailyBudget) + ", " + text + " spent today (" + c.Today + ", UTC)\n\n")
	}
	if len(c.Days) == 0 {
		b.WriteString("no runs\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	rows := [][]string{{"day", "process", "runs", "cost"}}
	for _, d := range c.Days {
		for _, p := range d.Processes {
			rows = append(rows, []string{d.Day, p.Process, strconv.Itoa(p.Runs), costText(p.Usage)})
		}
		rows = append(rows, []string{d.Day, "total", strconv.Itoa(d.Runs), costText(d.Usage)})
	}
	for _, line := range columns(rows) {
		b.WriteString(st.shown(line) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonCosts struct {
	Version     int                  `json:"version"`
	DailyBudget *float64             `json:"daily_budget_usd,omitempty"`
	Today       string               `json:"today"`
	Days        []record.DaySpending `json:"days"`
}

// WriteJSON writes the costs as one JSON document: {"version":1,
// "daily_budget_usd":N (when the config sets one),"today":"YYYY-MM-DD",
// "days":[{"day","runs","usage","processes":[{"process","runs","usage"}]}]},
// the newest day first; indented for a person at a terminal.
func (c *Costs) WriteJSON(w io.Writer, indent bool) error {
	doc := jsonCosts{Version: ReportVersion, Today: c.Today, Days: nonNil(c.Days)}
	if c.DailyBudget > 0 {
		doc.DailyBudget = &c.DailyBudget
	}
	for i := range doc.Days {
		doc.Days[i].Processes = nonNil(doc.Days[i].Processes)
	}
	return writeJSON(w, doc, indent)
}
