package ratelimit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/toold/toold/internal/strictjson"
)

// maxFileBytes bounds a limits file: a few thousand tenants fit.
const maxFileBytes = 4 << 20

// limitsFile is the shape of a --tenant-limits file:
//
//	{"default": {"rate": 50, "burst": 100, "concurrent": 32},
//	 "tenants": {"batch-jobs": {"rate": 500, "burst": 1000},
//	             "trial": {"rate": 2, "concurrent": 1}}}
//
// A tenant's entry replaces the default whole: a field it leaves out is
// no limit, not the default's value.
type limitsFile struct {
	Default *fileLimits           `json:"default"`
	Tenants map[string]fileLimits `json:"tenants"`
}

type fileLimits struct {
	Rate       float64 `json:"rate"`
	Burst      int     `json:"burst"`
	Concurrent int     `json:"concurrent"`
}

func (f fileLimits) limits() Limits {
	return Limits{Rate: f.Rate, Burst: f.Burst, Concurrent: f.Concurrent}
}

// LoadFile reads a limits file into a Config. fallback is the default for
// tenants the file does not list, unless the file has its own "default".
// A file that cannot be used is an error naming what is wrong; nothing of
// it applies.
func LoadFile(path string, fallback Limits) (Config, error) {
	data, err := readBounded(path)
	if err != nil {
		return Config{}, err
	}
	cfg, err := ParseFile(data, fallback)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseFile is LoadFile on the file's bytes.
func ParseFile(data []byte, fallback Limits) (Config, error) {
	if err := strictjson.Check(data); err != nil {
		return Config{}, err
	}
	var f limitsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Config{}, fmt.Errorf("want {\"default\": {...}, \"tenants\": {\"name\": {\"rate\": N, \"burst\": N, \"concurrent\": N}}}: %w", err)
	}
	cfg := Config{Default: fallback, Tenants: map[string]Limits{}}
	if f.Default != nil {
		cfg.Default = f.Default.limits()
	}
	for name, l := range f.Tenants {
		if name == "" {
			return Config{}, fmt.Errorf("tenants: an empty tenant name")
		}
		cfg.Tenants[name] = l.limits()
	}
	if err := cfg.check(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxFileBytes)
	}
	return data, nil
}
