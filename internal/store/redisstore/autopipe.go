package redisstore

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// autoPipe sends the scripts of concurrent calls together: a worker takes
// one request, adds whatever others are already waiting (up to maxBatch),
// and sends them as one pipeline. Alone, a request goes out at once, so a
// single caller waits no longer; under load, many calls share a round
// trip, which saves Redis and toold a read and a write each. Order between
// requests of different callers is not kept (they touch different calls);
// one caller's requests are sequential anyway.
type autoPipe struct {
	c     redis.UniversalClient
	queue chan *pipedScript
	stop  chan struct{}
}

const (
	pipeWorkers = 2
	maxBatch    = 64
)

type pipedScript struct {
	sc   *redis.Script
	keys []string
	args []any
	cmd  *redis.Cmd
	done chan struct{}
}

func newAutoPipe(c redis.UniversalClient) *autoPipe {
	p := &autoPipe{c: c, queue: make(chan *pipedScript, 1024), stop: make(chan struct{})}
	for range pipeWorkers {
		go p.work()
	}
	return p
}

// run runs a script through the pipe. The result is the script's, as
// sc.Run would give it; ctx bounds the wait, not the pipeline, which the
// client's socket timeouts bound.
func (p *autoPipe) run(ctx context.Context, sc *redis.Script, keys []string, args ...any) *redis.Cmd {
	r := &pipedScript{sc: sc, keys: keys, args: args, done: make(chan struct{})}
	select {
	case p.queue <- r:
	case <-ctx.Done():
		return failed(ctx.Err())
	case <-p.stop:
		return failed(redis.ErrClosed)
	}
	select {
	case <-r.done:
		return r.cmd
	case <-ctx.Done():
		return failed(ctx.Err())
	}
}

func failed(err error) *redis.Cmd {
	cmd := redis.NewCmd(context.Background())
	cmd.SetErr(err)
	return cmd
}

func (p *autoPipe) work() {
	batch := make([]*pipedScript, 0, maxBatch)
	for {
		select {
		case r := <-p.queue:
			batch = append(batch[:0], r)
		case <-p.stop:
			return
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-p.queue:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		p.send(batch)
	}
}

func (p *autoPipe) send(batch []*pipedScript) {
	ctx := context.Background()
	if len(batch) == 1 {
		r := batch[0]
		r.cmd = r.sc.Run(ctx, p.c, r.keys, r.args...)
		close(r.done)
		return
	}
	pipe := p.c.Pipeline()
	for _, r := range batch {
		r.cmd = r.sc.EvalSha(ctx, pipe, r.keys, r.args...)
	}
	_, _ = pipe.Exec(ctx)
	for _, r := range batch {
		if err := r.cmd.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			// Redis lost its script cache (a restart, a failover): EVAL
			// runs the script and caches it again.
			r.cmd = r.sc.Eval(ctx, p.c, r.keys, r.args...)
		}
		close(r.done)
	}
}

func (p *autoPipe) close() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
}
