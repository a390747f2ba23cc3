// Command echo copies every line of its input back to its output verbatim.
//
// It is the floor of the benchmark in bench/mcpbench: the fastest any stdio
// server can answer, since it does nothing but move bytes through two pipes.
// It buffers both sides and flushes only when no more input is waiting, the
// same batching a well-written server can do.
package main

import (
	"bufio"
	"io"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		// ReadSlice avoids a copy; a line longer than the buffer arrives in
		// pieces (ErrBufferFull), which are written through unchanged.
		chunk, err := in.ReadSlice('\n')
		if len(chunk) > 0 {
			if _, werr := out.Write(chunk); werr != nil {
				os.Exit(1)
			}
		}
		// Flush when nothing more is buffered: the next read would block,
		// and the peer may be waiting for what we hold.
		if in.Buffered() == 0 || (err != nil && err != bufio.ErrBufferFull) {
			if ferr := out.Flush(); ferr != nil {
				os.Exit(1)
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				return
			}
			os.Exit(1)
		}
	}
}
