package monitor

import (
	"errors"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// reader reads small kernel files (cgroup and /proc counters) into one
// buffer it keeps, and names them in another, so that a sample round
// allocates nothing for them: not the path (unix.Open would copy it into a
// new NUL-terminated string), not the content. Not safe for concurrent
// use: each sampler has its own.
type reader struct {
	buf  []byte
	path []byte // the NUL-terminated path being opened
}

// read returns the file's content, valid until the next read.
func (r *reader) read(path string) ([]byte, error) {
	r.path = append(append(r.path[:0], path...), 0)
	return r.readPath()
}

// readProc reads /proc/<pid>/<file>.
func (r *reader) readProc(pid int, file string) ([]byte, error) {
	p := append(r.path[:0], "/proc/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	p = append(p, '/')
	p = append(p, file...)
	r.path = append(p, 0)
	return r.readPath()
}

// readPath reads the file r.path names.
func (r *reader) readPath() ([]byte, error) {
	if r.buf == nil {
		r.buf = make([]byte, 8192)
	}
	fd, err := r.open()
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
			return nil, r.fail(err)
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

// atFDCWD is unix.AT_FDCWD as a variable: the constant is negative and
// cannot be converted to uintptr as a constant.
var atFDCWD = unix.AT_FDCWD

// open opens r.path read-only with openat(2) on the path's own bytes.
func (r *reader) open() (int, error) {
	for {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&r.path[0])),
			uintptr(unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return -1, r.fail(errno)
		}
		return int(fd), nil
	}
}

// fail names r.path in err; only a failed read pays for the string.
func (r *reader) fail(err error) error {
	return &readError{string(r.path[:len(r.path)-1]), err}
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

// readError names the file, as os.PathError does, and unwraps to the errno
// so that errors.Is(err, fs.ErrNotExist) tells a vanished process.
type readError struct {
	path string
	err  error
}

func (e *readError) Error() string { return "read " + e.path + ": " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }
