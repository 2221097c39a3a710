package monitor

import (
	"errors"

	"golang.org/x/sys/unix"
)

// reader reads small kernel files (cgroup and /proc counters) into one
// buffer it keeps, so that a sample round allocates nothing for them. Not
// safe for concurrent use: each sampler has its own.
type reader struct{ buf []byte }

// read returns the file's content, valid until the next read.
func (r *reader) read(path string) ([]byte, error) {
	if r.buf == nil {
		r.buf = make([]byte, 8192)
	}
	fd, err := openRetry(path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := unix.Read(fd, r.buf[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &readError{path, err}
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

// uint reads a file holding one number.
func (r *reader) uint(path string) (uint64, error) {
	b, err := r.read(path)
	if err != nil {
		return 0, err
	}
	v, ok := parseUint(b)
	if !ok {
		return 0, &readError{path, errors.New("not a number")}
	}
	return v, nil
}

func openRetry(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, &readError{path, err}
		}
		return fd, nil
	}
}

// readError names the file, as os.PathError does, and unwraps to the errno
// so that errors.Is(err, fs.ErrNotExist) tells a vanished process.
type readError struct {
	path string
	err  error
}

func (e *readError) Error() string { return "read " + e.path + ": " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }
