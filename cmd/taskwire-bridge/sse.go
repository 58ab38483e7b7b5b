package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// readEvents reads a text/event-stream and calls fn with the data of each
// event as it completes, until fn returns false or the stream ends. An
// event's data lines are joined with newlines, as the SSE rules say;
// comments (keep-alives) and other fields are skipped. It returns nil at
// the end of the stream and the read error if it broke.
func readEvents(r io.Reader, fn func(data []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	has := false
	for {
		line, err := br.ReadBytes('\n')
		if err == nil {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if has && !fn(data) {
					return nil
				}
				data, has = data[:0], false
			case line[0] == ':':
			default:
				field, value, _ := bytes.Cut(line, []byte(":"))
				if string(field) == "data" {
					if has {
						data = append(data, '\n')
					}
					data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
					has = true
				}
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil // an event cut short is dropped, as SSE says
		case err != nil:
			return err
		}
	}
}
