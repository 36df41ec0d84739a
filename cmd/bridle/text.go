package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/internal/mdsafe"
)

// printable is a line of text read from a file (a name, a URL, a
// rule) made safe for a terminal: control characters (escape sequences
// that would recolour or rewrite the screen, a line feed that would fake
// another line), bidi and invisible characters, and bytes that are not
// UTF-8 are shown as U+FFFD.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\t' && mdsafe.BadChar(r, false) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// printableLines is printable keeping line feeds: text of several lines
// (an error's).
func printableLines(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\t' && mdsafe.BadChar(r, true) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// shellWord quotes s for a POSIX shell when it needs quoting. A word
// holding a character printable would hide (a control, bidi or invisible
// character, or bytes that are not UTF-8) is written $'…' with each as an
// escape (bash, zsh, ksh, and POSIX.1-2024 sh): the command still names s,
// and showing it cannot drive the terminal.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@~+,") == "" {
		return s
	}
	if printable(s) == s {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t' || !mdsafe.BadChar(r, false):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

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
