package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written plainly (1048576)
// or with a binary unit (512KiB, 16MiB, 16GiB; K, M, G mean the same).
type byteSize uint64

var sizeUnits = []struct {
	suffix string
	mult   uint64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1},
}

func (b *byteSize) String() string {
	v := uint64(*b)
	for _, u := range sizeUnits[:4] {
		if v != 0 && v%u.mult == 0 {
			return strconv.FormatUint(v/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatUint(v, 10)
}

func (b *byteSize) Set(s string) error {
	num, mult := strings.TrimSpace(s), uint64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(strings.ToUpper(num), strings.ToUpper(u.suffix)) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseUint(num, 10, 64)
	if err != nil || (v != 0 && v > ^uint64(0)/mult) {
		return fmt.Errorf("%q is not a size: want bytes, or a number with KiB, MiB, GiB or TiB", s)
	}
	*b = byteSize(v * mult)
	return nil
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
