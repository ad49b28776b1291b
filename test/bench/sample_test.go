package main

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestInterleaveAlternates(t *testing.T) {
	var order []string
	a := func() error { order = append(order, "a"); return nil }
	b := func() error { order = append(order, "b"); return nil }
	sa, sb, err := interleave(3, a, b)
	if err != nil || len(sa) != 3 || len(sb) != 3 {
		t.Fatalf("%d, %d samples, err %v", len(sa), len(sb), err)
	}
	if want := []string{"a", "b", "b", "a", "a", "b"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	boom := errors.New("boom")
	if _, _, err := interleave(3, a, func() error { return boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestInterleaveNRotates(t *testing.T) {
	var order []string
	f := func(name string) func() error { return func() error { order = append(order, name); return nil } }
	s, err := interleaveN(3, f("a"), f("b"), f("c"))
	if err != nil || len(s) != 3 || len(s[0]) != 3 || len(s[1]) != 3 || len(s[2]) != 3 {
		t.Fatalf("samples %v, err %v", s, err)
	}
	if want := []string{"a", "b", "c", "b", "c", "a", "c", "a", "b"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
}

func TestQuantile(t *testing.T) {
	s := samples{5, 1, 4, 2, 3}
	if s.p50() != 3 || s.quantile(0) != 1 || s.quantile(1) != 5 {
		t.Errorf("p50 %v, min %v, max %v", s.p50(), s.quantile(0), s.quantile(1))
	}
	if !slices.Equal(s, samples{5, 1, 4, 2, 3}) {
		t.Error("quantile sorted the samples in place")
	}
}

func TestTicks(t *testing.T) {
	got := ticks(150*time.Microsecond, 3*time.Millisecond)
	want := []time.Duration{200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond}
	if !slices.Equal(got, want) {
		t.Errorf("ticks = %v, want %v", got, want)
	}
	if l := tickLabel(200 * time.Microsecond); l != "200us" {
		t.Errorf("label %q", l)
	}
	if l := tickLabel(2500 * time.Microsecond); l != "2.5ms" {
		t.Errorf("label %q", l)
	}
}
