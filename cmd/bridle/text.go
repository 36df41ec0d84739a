package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// How the text output of lists reads, the same for every list: a header row
// of upper-case column names and aligned columns on stdout (as gh and
// kubectl print them), and, for an empty list, nothing on stdout and one
// line on stderr that says there is none yet and which command adds one.

// table writes aligned columns to w: cells separated by tabs, rows by
// newlines, header first. Flush writes it, without the padding an empty
// last cell would leave at the end of a line.
func table(w io.Writer, header ...string) *columns {
	c := &columns{out: w}
	c.tw = tabwriter.NewWriter(&c.buf, 0, 8, 2, ' ', 0)
	fmt.Fprintln(c.tw, strings.Join(header, "\t"))
	return c
}

type columns struct {
	out io.Writer
	buf bytes.Buffer
	tw  *tabwriter.Writer
}

func (c *columns) Write(p []byte) (int, error) { return c.tw.Write(p) }

func (c *columns) Flush() error {
	if err := c.tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	for line := range strings.Lines(c.buf.String()) {
		b.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := io.WriteString(c.out, b.String())
	return err
}

// cell makes s one table cell: one line, no tabs.
func cell(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
}

// none prints an empty list's status line on stderr: what there is none of,
// and how to add one.
func none(io *streams, what, how string) {
	fmt.Fprintf(io.errOut, "%s — %s\n", what, how)
}

// count is n with the noun in the right number: count(1, "memory",
// "memories") is "1 memory", count(0, …) "0 memories".
func count(n int, singular, pluralForm string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %s", n, pluralForm)
}
