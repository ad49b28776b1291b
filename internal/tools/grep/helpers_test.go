package grep

import (
	"errors"

	"github.com/toold/toold/internal/tool"
)

func asToolError(err error, te **tool.Error) bool { return errors.As(err, te) }
