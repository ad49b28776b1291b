package server

import (
	"strconv"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc/codes"
)

// slowRPC is how long an RPC may take before its line is logged at INFO
// even though it succeeded.
const slowRPC = time.Second

// rpcLevel is the level of an RPC's log line by its code: a success at
// DEBUG (unless slow: see slowFields), the caller's mistakes at INFO,
// failures of the server or its dependencies at WARN and ERROR.
func rpcLevel(code codes.Code) logging.Level {
	if code == codes.OK {
		return logging.LevelDebug
	}
	return logging.DefaultServerCodeToLevel(code)
}

// slowFields reports whether the line's duration field (the logging
// interceptor's grpc.time_ms) is past slowRPC.
func slowFields(fields []any) bool {
	for i := 0; i+1 < len(fields); i += 2 {
		if k, _ := fields[i].(string); k == "grpc.time_ms" {
			s, _ := fields[i+1].(string)
			ms, err := strconv.ParseFloat(s, 64)
			return err == nil && ms >= float64(slowRPC.Milliseconds())
		}
	}
	return false
}
