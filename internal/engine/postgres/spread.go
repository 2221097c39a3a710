package postgres

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Each database is a directory of some 300 files under the data
// directory's base/, so CREATE DATABASE ... TEMPLATE creates 300 inodes. On
// ext4 a file's inode is taken from its directory's block group, and on a
// file system without a journal ext4 passes over every free inode there
// that was freed in the last minute (six if its inode table block is not
// yet written back): recently_deleted() in fs/ext4/ialloc.c. Where other
// programs delete many files (test servers torn down, a previous run's
// data directory), that search took most of a clone's time: perf put 64 %
// of the cloning backend's CPU in __ext4_new_inode, and 200 clones 8 at a
// time took 0.17 s each (BENCHMARKS.md). ext4's top-directory flag on
// base/ (chattr +T) has each new database directory placed as a top
// directory is (the Orlov rule: a group with more free inodes and blocks
// than the average), where its files then find fresh inodes at once: 0.05
// s each. It changes where the files lie on the disk, not what they hold.

// fsTopdirFL is FS_TOPDIR_FL of linux/fs.h, which x/sys/unix lacks.
const fsTopdirFL = 0x00020000

// spreadDatabases marks dataDir's base/ as a top directory. It is a hint:
// a file system without the flag (anything but ext2/3/4) refuses it, and
// then nothing changes; that refusal is not an error.
func spreadDatabases(dataDir string) {
	f, err := os.Open(filepath.Join(dataDir, "base"))
	if err != nil {
		return
	}
	defer f.Close()
	fd := int(f.Fd())
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil || flags&fsTopdirFL != 0 {
		return
	}
	_ = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|fsTopdirFL))
}
