package repo

// byteBuffers keeps byte buffers from one file to the next. Unlike a sync.Pool it is not
// emptied by garbage collection, which a check brings about several times a second: a
// buffer dropped so is grown again, copying, for the next large file. A buffer grown past
// maxKept (a large file's) is left to the collector; at most 8 are kept.
type byteBuffers struct {
	c chan []byte
}

// maxKept bounds the capacity of a kept buffer.
const maxKept = 1 << 20

func newByteBuffers() *byteBuffers { return &byteBuffers{c: make(chan []byte, 8)} }

// get returns an empty buffer.
func (b *byteBuffers) get() []byte {
	select {
	case buf := <-b.c:
		return buf[:0]
	default:
		return make([]byte, 0, 64<<10)
	}
}

// put keeps buf for a later get, unless it is too large or enough are kept.
func (b *byteBuffers) put(buf []byte) {
	if cap(buf) == 0 || cap(buf) > maxKept {
		return
	}
	select {
	case b.c <- buf[:0]:
	default:
	}
}
