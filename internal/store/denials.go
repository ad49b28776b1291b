package store

import "fmt"

// DenialKind says whose denials a count holds. Each kind is its own
// counter: auto mode's brake counts the classifier's denials only, and
// --denial-limit counts the permission requests people refused.
type DenialKind uint8

const (
	// PersonDenials are permission requests a person refused, or that
	// nobody answered in time.
	PersonDenials DenialKind = iota
	// ClassifierDenials are calls auto mode's classifier denied.
	ClassifierDenials
)

func (k DenialKind) String() string {
	switch k {
	case PersonDenials:
		return "person"
	case ClassifierDenials:
		return "classifier"
	}
	return fmt.Sprintf("DenialKind(%d)", uint8(k))
}

// CheckDenialKind returns an error for a kind that is not one of the
// above: a store counts nothing under a name it does not know.
func CheckDenialKind(k DenialKind) error {
	if k > ClassifierDenials {
		return fmt.Errorf("unknown denial kind %d", uint8(k))
	}
	return nil
}
