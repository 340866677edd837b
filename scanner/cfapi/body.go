package cfapi

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Response bodies are read under one budget per client, shared by all its goroutines, so
// memory does not grow with the number of workers: each worker once buffered up to 256 MiB
// (4.1 GB at 8 workers). A body is decoded as it streams in (see decodeStream), and the
// bytes read so far from it, which the decoded objects and the decoder's buffer stand for,
// count against the budget until the call is done.
//
// The budget has two parts, so that no reader ever waits for bytes while holding some that
// another waiting reader needs (which could deadlock):
//   - slots: every body first takes a slot worth slotBytes (blocking while it holds nothing);
//     most bodies end within it;
//   - big: one body at a time may go past its slot, up to bigBytes more. Readers that need it
//     queue for it holding only their slot, and its holder waits only for the network.
//
// A body larger than slotBytes+bigBytes fails that call with a *BodyTooLargeError; nothing is
// retried, as the same answer would come again. The wait for the big share counts against
// the HTTP client's timeout (it covers reading the body); at the sizes the API sends, a
// body is read in well under a second.
const (
	// DefaultBodyBudget is Config.BodyBudget's default: 32 MiB for all response bodies being
	// read at once, so one body may have 24 MiB. The largest pages the scan asks for (5,000
	// DNS records, 1,000 rate limits) are a few MiB. Decoded objects take more room than
	// their JSON (a list of small zones about 4x), which is why the budget is not larger.
	DefaultBodyBudget = 32 << 20
	// maxSlotBytes is the most a slot holds; the slots share a quarter of the budget.
	maxSlotBytes = 256 << 10
	// headBytes is how much of a body is kept for an error excerpt.
	headBytes = 4 << 10
)

// BodyTooLargeError is the failure of a call whose response body is larger than one body
// may be under the client's budget (Config.BodyBudget).
type BodyTooLargeError struct {
	// Limit is the most bytes one body may have.
	Limit int64
	// Budget is the client's budget for all bodies read at once.
	Budget int64
}

// Error says how large a body may be and why.
func (e *BodyTooLargeError) Error() string {
	return fmt.Sprintf("response body larger than %d bytes, the most one body may take of the client's %d-byte budget for response bodies read at once", e.Limit, e.Budget)
}

// bodyBudget is the shared budget; see the constants above.
type bodyBudget struct {
	total     int64
	slotBytes int64
	bigBytes  int64
	slots     chan struct{}
	big       chan struct{}
}

func newBodyBudget(total int64) *bodyBudget {
	if total <= 0 {
		total = DefaultBodyBudget
	}
	slotBytes := min(int64(maxSlotBytes), max(total/16, 1))
	n := max(total/4/slotBytes, 1)
	return &bodyBudget{
		total:     total,
		slotBytes: slotBytes,
		bigBytes:  max(total-n*slotBytes, 0),
		slots:     make(chan struct{}, n),
		big:       make(chan struct{}, 1),
	}
}

// limit is the most bytes one body may have.
func (b *bodyBudget) limit() int64 { return b.slotBytes + b.bigBytes }

// open takes a slot for body (waiting while every slot is taken) and returns the reader
// that counts it; its Close releases what it holds and closes body.
func (b *bodyBudget) open(ctx context.Context, body io.ReadCloser) (*budgetReader, error) {
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &budgetReader{ctx: ctx, b: b, body: body, limit: b.slotBytes}, nil
}

// budgetReader reads a body within the budget and keeps its first headBytes.
type budgetReader struct {
	ctx    context.Context
	b      *bodyBudget
	body   io.ReadCloser
	read   int64
	limit  int64
	hasBig bool
	closed bool
	head   []byte
	// failed is the first error of the body other than io.EOF: a transport failure, the
	// context, or a *BodyTooLargeError. The decoder's own errors are judged against it.
	failed error
}

// Read reads within the budget, taking the big share when the slot is spent.
func (r *budgetReader) Read(p []byte) (int, error) {
	if r.failed != nil {
		return 0, r.failed
	}
	if r.read >= r.limit {
		if err := r.grow(); err != nil {
			r.failed = err
			return 0, err
		}
	}
	if room := r.limit - r.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.body.Read(p)
	r.read += int64(n)
	if keep := min(n, headBytes-len(r.head)); keep > 0 {
		r.head = append(r.head, p[:keep]...)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		r.failed = err
	}
	return n, err
}

// grow takes the big share, once; past it the body is too large.
func (r *budgetReader) grow() error {
	if r.hasBig || r.b.bigBytes == 0 {
		return &BodyTooLargeError{Limit: r.b.limit(), Budget: r.b.total}
	}
	select {
	case r.b.big <- struct{}{}:
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
	r.hasBig = true
	r.limit += r.b.bigBytes
	return nil
}

// fillHead reads on until headBytes are kept or the body ends, for an excerpt; it reports
// whether the head is the whole body.
func (r *budgetReader) fillHead() (whole bool) {
	var buf [512]byte
	for len(r.head) < headBytes && r.failed == nil {
		if _, err := r.Read(buf[:min(len(buf), headBytes-len(r.head))]); err != nil {
			return errors.Is(err, io.EOF)
		}
	}
	return false
}

// Close releases the budget and closes the body; it may be called more than once.
func (r *budgetReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.hasBig {
		<-r.b.big
	}
	<-r.b.slots
	return r.body.Close()
}
