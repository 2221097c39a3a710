package local

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tenantbench/tenantbench/internal/cgroup"
	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/spec"
)

// The storage of sut.storage (Erdelt and Rabl 2026, sections 6.2-6.4): a
// server's data directory is the mount point of a file system of its own
// (volume per-instance: a tmpfs, or an ext4 image on a loop device, so
// that servers share no journal), or a directory of one tmpfs the run's
// servers share, bind-mounted (kind tmpfs, volume shared). Every mount is
// in the server's Record before it is made; Remove (or StopRecord, after
// a SIGKILL) unmounts them.

// sharedVolume is the directory of the run's shared tmpfs, below its work
// directory; a leading dot keeps it apart from instance names.
const sharedVolume = ".storage"

// volumeMu serializes making and unmounting the run's shared volume:
// its servers start and stop at once.
var volumeMu sync.Mutex

// imageName is an instance's ext4 image, in its own directory.
const imageName = "volume.img"

// defaultImageBytes is an image's size when sut.storage.size is not
// given: sparse, so only what the server writes takes disk.
const defaultImageBytes = 8 << 30

// Storage is the local provider's answer at plan (provider.Factory's
// Storage): why it cannot give kind on volume here, "" when it can.
func Storage(kind, volume string) string {
	if kind == spec.StorageDisk && volume == spec.VolumeShared {
		return ""
	}
	if os.Geteuid() != 0 {
		return "mounting a file system for the servers needs root: run tenantbench as root, or keep kind disk on a shared volume"
	}
	if kind == spec.StorageDisk {
		for _, prog := range []string{"mkfs.ext4", "losetup"} {
			if _, err := sbin(prog); err != nil {
				return prog + " is not installed (Debian packages e2fsprogs and mount): a per-instance disk volume is an ext4 image on a loop device"
			}
		}
	}
	return ""
}

// Cores is the local provider's answer at plan (provider.Factory's
// Cores): why it cannot place servers on cores, "" when it can.
func Cores() string { return cgroup.Detect().Cpusets() }

// sbin finds a system program, also where root's PATH has it and this
// process's may not.
func sbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

// owner is who the servers' files belong to.
func (p *Provider) owner() (uid, gid int) {
	if p.account != nil {
		return p.account.uid, p.account.gid
	}
	return os.Getuid(), os.Getgid()
}

// addMount lists m in srv's record and tells the ledger, before m is
// mounted.
func (srv *server) addMount(m provider.Mount) {
	proc := Of(srv.inst)
	proc.mu.Lock()
	proc.mounts = append(proc.mounts, m)
	proc.mu.Unlock()
	srv.note()
}

// setLoop records the loop device the last mount's image is attached to.
func (srv *server) setLoop(loop string) {
	proc := Of(srv.inst)
	proc.mu.Lock()
	proc.mounts[len(proc.mounts)-1].Loop = loop
	proc.mu.Unlock()
	srv.note()
}

// prepareStorage makes the file system srv's data directory lives on, as
// its spec asks; nothing for disk on a shared volume. The data directory
// is then an empty directory owned by the server user, for initdb or the
// copy of a clone.
func (p *Provider) prepareStorage(srv *server) error {
	st := srv.spec.Storage
	if st.Kind == "" && st.Volume == "" || st.Kind == spec.StorageDisk && st.Volume == spec.VolumeShared {
		return nil
	}
	dataDir := Of(srv.inst).DataDir
	uid, gid := p.owner()
	switch {
	case st.Kind == spec.StorageTmpfs && st.Volume == spec.VolumePerInstance:
		if err := os.Mkdir(dataDir, 0o700); err != nil {
			return err
		}
		srv.addMount(provider.Mount{Dir: dataDir, Kind: provider.MountTmpfs})
		return mountTmpfs(dataDir, st.SizeBytes, uid, gid, 0o700)
	case st.Kind == spec.StorageTmpfs:
		return p.bindShared(srv, dataDir, st.SizeBytes, uid, gid)
	case st.Kind == spec.StorageDisk && st.Volume == spec.VolumePerInstance:
		return srv.mountImage(dataDir, st.SizeBytes, uid, gid)
	}
	return fmt.Errorf("storage %s on a %s volume is not known to the local provider", st.Kind, st.Volume)
}

// mountTmpfs mounts a tmpfs at dir, its root owned by uid:gid; size 0
// keeps the kernel's default, half the memory, an upper bound: a tmpfs
// takes memory only for what is written to it.
func mountTmpfs(dir string, size int64, uid, gid int, mode os.FileMode) error {
	opts := fmt.Sprintf("mode=%o,uid=%d,gid=%d", mode, uid, gid)
	if size > 0 {
		opts += fmt.Sprintf(",size=%d", size)
	}
	if err := unix.Mount("tenantbench", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount a tmpfs at %s: %w", dir, err)
	}
	return nil
}

// mountImage makes a sparse ext4 image in the instance's directory,
// attaches it to a loop device and mounts it at dataDir.
func (srv *server) mountImage(dataDir string, size int64, uid, gid int) error {
	if size <= 0 {
		size = defaultImageBytes
	}
	img := filepath.Join(srv.instDir, imageName)
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		return err
	}
	srv.addMount(provider.Mount{Dir: dataDir, Kind: provider.MountExt4, Source: img})
	f, err := os.OpenFile(img, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("make the image %s: %w", img, err)
	}
	mkfs, err := sbin("mkfs.ext4")
	if err != nil {
		return err
	}
	// No reserved blocks: the server is the file system's only user.
	if out, err := exec.Command(mkfs, "-q", "-F", "-m", "0", "-E", fmt.Sprintf("root_owner=%d:%d", uid, gid), img).CombinedOutput(); err != nil {
		return fmt.Errorf("mkfs.ext4 %s: %v: %s", img, err, strings.TrimSpace(string(out)))
	}
	losetup, err := sbin("losetup")
	if err != nil {
		return err
	}
	out, err := exec.Command(losetup, "--find", "--show", img).CombinedOutput()
	if err != nil {
		return fmt.Errorf("losetup %s: %v: %s", img, err, strings.TrimSpace(string(out)))
	}
	loop := strings.TrimSpace(string(out))
	srv.setLoop(loop)
	if err := unix.Mount(loop, dataDir, "ext4", unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("mount %s (%s) at %s: %w", loop, img, dataDir, err)
	}
	// An empty data directory for initdb, as the server user's alone.
	if err := os.Remove(filepath.Join(dataDir, "lost+found")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Chmod(dataDir, 0o700)
}

// bindShared mounts the run's shared tmpfs if no server has yet, and
// binds a directory of it at dataDir.
func (p *Provider) bindShared(srv *server, dataDir string, size int64, uid, gid int) error {
	vol := filepath.Join(srv.workDir, sharedVolume)
	// One mount for the run's servers, however many start at once.
	volumeMu.Lock()
	defer volumeMu.Unlock()
	srv.addMount(provider.Mount{Dir: vol, Kind: provider.MountTmpfs, Shared: true})
	if !isMountPoint(vol) {
		if err := os.Mkdir(vol, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if err := mountTmpfs(vol, size, 0, 0, 0o755); err != nil {
			return err
		}
	}
	src := filepath.Join(vol, srv.spec.Name)
	if err := os.Mkdir(src, 0o700); err != nil {
		return err
	}
	if err := os.Chown(src, uid, gid); err != nil {
		return err
	}
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		return err
	}
	srv.addMount(provider.Mount{Dir: dataDir, Kind: provider.MountBind, Source: src})
	if err := unix.Mount(src, dataDir, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s at %s: %w", src, dataDir, err)
	}
	return nil
}

// releaseStorage unmounts what prepareStorage mounted for srv and
// removes its images and its directory of a shared volume; the last
// server on a shared volume unmounts it.
func (srv *server) releaseStorage() error {
	proc := Of(srv.inst)
	proc.mu.RLock()
	mounts := append([]provider.Mount(nil), proc.mounts...)
	proc.mu.RUnlock()
	if len(mounts) == 0 {
		return nil
	}
	volumeMu.Lock()
	defer volumeMu.Unlock()
	if err := unmountAll(mounts, srv.workDir); err != nil {
		return err
	}
	proc.mu.Lock()
	proc.mounts = nil
	proc.mu.Unlock()
	return nil
}

// unmountAll undoes mounts in reverse order of their making: what a
// server's record lists. A mount never made (a start cut short) is not an
// error. Only paths below workDir are removed.
func unmountAll(mounts []provider.Mount, workDir string) error {
	within := func(path string) bool {
		return path != "" && filepath.IsAbs(path) && strings.HasPrefix(filepath.Clean(path), filepath.Clean(workDir)+"/")
	}
	var errs []error
	for i := len(mounts) - 1; i >= 0; i-- {
		m := mounts[i]
		if !within(m.Dir) {
			errs = append(errs, fmt.Errorf("mount %s is not in work directory %s; not touching it", m.Dir, workDir))
			continue
		}
		if m.Shared {
			// Others may still live on it: only the last one goes.
			if entries, err := os.ReadDir(m.Dir); err == nil && len(entries) > 0 {
				continue
			}
		}
		if err := unmount(m.Dir); err != nil {
			errs = append(errs, err)
			continue
		}
		switch m.Kind {
		case provider.MountExt4:
			if within(m.Source) {
				if err := detachLoops(m.Source); err != nil {
					errs = append(errs, err)
					continue
				}
				if err := os.Remove(m.Source); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		case provider.MountBind:
			if within(m.Source) {
				if err := os.RemoveAll(m.Source); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if m.Shared {
			_ = os.Remove(m.Dir)
		}
	}
	return errors.Join(errs...)
}

// unmount unmounts dir, waiting a little while the server's last
// processes let go of it; not mounted is done.
func unmount(dir string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if !isMountPoint(dir) {
			return nil
		}
		err := unix.Unmount(dir, 0)
		if err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("unmount %s: %w", dir, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// detachLoops detaches every loop device attached to img (losetup -j):
// also one attached by a start killed before it recorded the device, and
// never a device number reused by another image since.
func detachLoops(img string) error {
	losetup, err := sbin("losetup")
	if err != nil {
		return err
	}
	out, err := exec.Command(losetup, "-j", img).Output()
	if err != nil {
		return fmt.Errorf("losetup -j %s: %w", img, err)
	}
	var loops []string
	for _, line := range strings.Split(string(out), "\n") {
		if dev, _, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(dev, "/dev/loop") {
			loops = append(loops, dev)
		}
	}
	for _, dev := range loops {
		if out, err := exec.Command(losetup, "-d", dev).CombinedOutput(); err != nil {
			return fmt.Errorf("losetup -d %s: %v: %s", dev, err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// isMountPoint says whether dir is a mount point (/proc/self/mountinfo).
func isMountPoint(dir string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	dir = filepath.Clean(dir)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && unescapeMount(f[4]) == dir {
			return true
		}
	}
	return false
}

// unescapeMount reads mountinfo's octal escapes (a space is \040).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Resizes is the local provider's answer at plan (provider.Factory's
// Resizes): why it cannot change a running server's limits (no writable
// cgroup with the cpu and memory controllers), "" when it can.
func Resizes() string {
	s := cgroup.Detect()
	if s.Mode == cgroup.None {
		return "cgroups are not available here: " + s.Reason
	}
	return ""
}
