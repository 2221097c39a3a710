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
//
// With keep, the files read by name (a cgroup's, the host's) and each
// process's schedstat stay open and are read again from their start with
// pread(2), which makes the kernel format them anew: a round pays a read,
// not an open, a read and a close (the open walks the path, component by
// component). The kernel's files do not keep what they held: a file whose
// process or group is gone fails to read, and is opened again by name.
type reader struct {
	buf  []byte
	path []byte // the NUL-terminated path being opened
	keep bool
	kept map[string]int // the fd of each file kept open, by its path
	// files bounds what this reader and its monitor's others keep open;
	// nil: no bound.
	files *keptFiles
}

// read returns the file's content, valid until the next read.
func (r *reader) read(path string) ([]byte, error) {
	if fd, ok := r.kept[path]; ok {
		if b, err := r.readFD(fd); err == nil {
			return b, nil
		}
		r.closeKeptFD(fd)
		delete(r.kept, path)
	}
	r.path = append(append(r.path[:0], path...), 0)
	fd, err := r.openKept()
	if err != nil {
		return nil, err
	}
	b, err := r.readFD(fd)
	if err != nil || !r.keep || !r.files.take() {
		unix.Close(fd)
		if err != nil {
			return nil, r.fail(err)
		}
		return b, nil
	}
	if r.kept == nil {
		r.kept = map[string]int{}
	}
	r.kept[path] = fd
	return b, nil
}

// readOnce reads the file with an open, a read and a close, whatever
// keep says: a cgroup v1 cgroup.procs read again from its start through
// the same open file lists the processes of its first read (the kernel
// keeps the list it made for the open file).
func (r *reader) readOnce(path string) ([]byte, error) {
	r.path = append(append(r.path[:0], path...), 0)
	return r.readPath()
}

// readProcKept reads /proc/<pid>/<file> through *fd, the file kept open
// for the process (its fd + 1; 0: none yet), opening it when it is not.
func (r *reader) readProcKept(pid int, file string, fd *int32) ([]byte, error) {
	if *fd > 0 {
		if b, err := r.readFD(int(*fd - 1)); err == nil {
			return b, nil
		}
		// Its process is gone; the pid may be another's now.
		r.closeFD(fd)
	}
	r.procPath(pid, file)
	f, err := r.openKept()
	if err != nil {
		return nil, err
	}
	b, err := r.readFD(f)
	if err != nil || !r.keep || !r.files.take() {
		unix.Close(f)
		if err != nil {
			return nil, r.fail(err)
		}
		return b, nil
	}
	*fd = int32(f + 1)
	return b, nil
}

// closeFD closes a file readProcKept kept.
func (r *reader) closeFD(fd *int32) {
	if *fd > 0 {
		r.closeKeptFD(int(*fd - 1))
		*fd = 0
	}
}

// closeKeptFD closes a kept file and counts it given back.
func (r *reader) closeKeptFD(fd int) {
	unix.Close(fd)
	r.files.give()
}

// openKept opens r.path; when the process has no file descriptor left it
// gives back those it keeps, keeps no more, and tries again.
func (r *reader) openKept() (int, error) {
	fd, err := r.open()
	var re *readError
	if r.keep && errors.As(err, &re) && (re.err == unix.EMFILE || re.err == unix.ENFILE) {
		r.closeKept()
		r.keep = false
		return r.open()
	}
	return fd, err
}

// closeKept closes the files kept by name.
func (r *reader) closeKept() {
	for path, fd := range r.kept {
		r.closeKeptFD(fd)
		delete(r.kept, path)
	}
}

// readFD reads a file from its start into r.buf.
func (r *reader) readFD(fd int) ([]byte, error) {
	if r.buf == nil {
		r.buf = make([]byte, 8192)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := unix.Pread(fd, r.buf[n:], int64(n))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

// readProc reads /proc/<pid>/<file>.
func (r *reader) readProc(pid int, file string) ([]byte, error) {
	r.procPath(pid, file)
	return r.readPath()
}

// procPath sets r.path to /proc/<pid>/<file>.
func (r *reader) procPath(pid int, file string) {
	p := append(r.path[:0], "/proc/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	p = append(p, '/')
	p = append(p, file...)
	r.path = append(p, 0)
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
