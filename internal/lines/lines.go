// Package lines reads newline-delimited input a line at a time with a
// bound on each line: a longer line is consumed and reported, never held in
// memory, so a hostile peer cannot make a reader buffer without limit.
package lines

import (
	"bufio"
	"errors"
)

// Read reads one line of at most max bytes (a trailing \r\n does not
// count). A longer line is consumed and discarded, and reported with
// tooLong. err is the reader's error after the line, io.EOF at the end of
// input (with the last line, if it had no newline).
func Read(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // +2 for \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}
