package repo

import (
	"io/fs"
	"syscall"
)

func statFingerprint(info fs.FileInfo) fingerprint {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fingerprint{}
	}
	return fingerprint{Ctime: st.Ctim.Nano(), Ino: st.Ino}
}
