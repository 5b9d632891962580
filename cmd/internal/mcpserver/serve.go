package mcpserver

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve runs the server on a stdio pair until the client closes in, or ctx is
// cancelled; calls in flight are then withdrawn. A session that ends either
// way is not an error.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	err := New(ctx, cfg).Run(ctx, &mcp.IOTransport{Reader: readCloser(in), Writer: nopWriteCloser{out}})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// nopWriteCloser keeps stdout open when the session ends, so a last error
// message can still be written by whoever owns it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
