//go:build !unix

package fsroot

import "os"

// openFlags: other systems have no O_NONBLOCK open; the fstat check after
// the open still refuses anything but a regular file.
const openFlags = os.O_RDONLY
