package peertrust

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// userName is uid's name from /etc/passwd, "" when it has none there. Read
// by hand, not with os/user: a client that imports os/user is linked with
// cgo wherever a C compiler is at hand, and starts slower for it (see
// socketproto's dialUnix). The name only makes a refusal easier to read;
// where the system keeps users elsewhere (macOS's directory service, LDAP)
// the uid alone is said.
func userName(uid int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	want := strconv.Itoa(uid)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), ":", 4)
		if len(fields) == 4 && fields[2] == want && fields[0] != "" && !strings.HasPrefix(fields[0], "#") {
			return fields[0]
		}
	}
	return ""
}
