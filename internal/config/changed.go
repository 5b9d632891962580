package config

import (
	"reflect"
	"slices"
	"strings"
)

// Changed is the keys whose values differ between a and b, as config.toml
// names them ("notify.idle", "rules.destructive"), sorted.
func Changed(a, b Config) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		table := tomlName(va.Type().Field(i))
		if table == "" || table == "-" {
			continue
		}
		ta, tb := va.Field(i), vb.Field(i)
		for j := range ta.NumField() {
			key := tomlName(ta.Type().Field(j))
			if key == "" || key == "-" {
				continue
			}
			if !reflect.DeepEqual(ta.Field(j).Interface(), tb.Field(j).Interface()) {
				out = append(out, table+"."+key)
			}
		}
	}
	slices.Sort(out)
	return out
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

// Live says whether a change of key (a Changed key) takes effect in a
// running daemon. What the daemon built at start from its config — its
// socket, state dir and journal, the page it serves, the notifiers it
// dials, the size of the lines it reads — waits for the next start.
func Live(key string) bool {
	table, _, _ := strings.Cut(key, ".")
	switch {
	case table == "rules", table == "ui":
		return true
	case table == "notify":
		return key == "notify.idle" || key == "notify.grace" || key == "notify.repeat"
	case table == "limits":
		return key != "limits.max_message_bytes"
	}
	return false
}
