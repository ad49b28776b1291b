package server

// LivenessService is the grpc.health.v1 service name that answers only
// whether the process is alive: SERVING from start until shutdown, whatever
// the state store does. Liveness probes ask it; readiness probes ask ""
// (or a toold.v1 service), which WatchHealth turns NOT_SERVING while the
// store is unreachable. Kept apart so that a Redis outage takes replicas
// out of the endpoints without kubelet restarting every one of them, which
// would help nothing and drop running calls.
const LivenessService = "toold.liveness"
