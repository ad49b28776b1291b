// Package deploy holds toold's Kubernetes manifests; its test renders them
// as `kubectl apply -k` would and reads the result as an operator would.
package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/server"
)

// rendering is one kustomization's output, every object decoded strictly
// into its Kubernetes API type.
type rendering struct {
	name         string
	deployments  []appsv1.Deployment
	statefulSets []appsv1.StatefulSet
	services     []corev1.Service
	configMaps   []corev1.ConfigMap
	secrets      []corev1.Secret
	pvcs         []corev1.PersistentVolumeClaim
	netpols      []networkingv1.NetworkPolicy
	hpas         []autoscalingv2.HorizontalPodAutoscaler
	pdbs         []policyv1.PodDisruptionBudget
	// raw holds every object as kustomize wrote it, for the API server.
	raw [][]byte
}

// allComponents is a kustomization, made only for the test, that puts
// every component under components/ on top of the dev overlay, so that a
// component is rendered and checked like the overlays are.
const allComponents = "test-all-components"

// renderings renders the base, every overlay and every component.
func renderings(t *testing.T) []*rendering {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return mem.WriteFile(path.Join("/deploy", filepath.ToSlash(p)), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	components := dirs(t, "components")
	if len(components) == 0 {
		t.Fatal("no components under deploy/components")
	}
	var k strings.Builder
	k.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../overlays/dev\ncomponents:\n")
	for _, c := range components {
		fmt.Fprintf(&k, "  - ../components/%s\n", c)
	}
	if err := mem.WriteFile("/deploy/"+allComponents+"/kustomization.yaml", []byte(k.String())); err != nil {
		t.Fatal(err)
	}

	targets := []string{"base"}
	for _, o := range dirs(t, "overlays") {
		targets = append(targets, "overlays/"+o)
	}
	for _, want := range []string{"overlays/dev", "overlays/prod"} {
		if !slices.Contains(targets, want) {
			t.Fatalf("missing overlay %s", want)
		}
	}
	targets = append(targets, allComponents)

	var out []*rendering
	for _, target := range targets {
		kz := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
		m, err := kz.Run(mem, "/deploy/"+target)
		if err != nil {
			t.Fatalf("kustomize build %s: %v", target, err)
		}
		r := &rendering{name: target}
		for _, res := range m.Resources() {
			data, err := res.MarshalJSON()
			if err != nil {
				t.Fatalf("%s: %s/%s: %v", target, res.GetKind(), res.GetName(), err)
			}
			if err := r.add(res.GetApiVersion(), res.GetKind(), data); err != nil {
				t.Fatalf("%s: %s/%s: %v", target, res.GetKind(), res.GetName(), err)
			}
		}
		out = append(out, r)
	}
	return out
}

func dirs(t *testing.T, parent string) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// add decodes one object into its API type, rejecting any field the type
// does not have (a misspelt or misplaced field is silently dropped by a
// lenient decoder and by a cluster without strict field validation).
func (r *rendering) add(apiVersion, kind string, data []byte) error {
	var dst any
	want := map[string]string{
		"Deployment": "apps/v1", "StatefulSet": "apps/v1", "Service": "v1",
		"ConfigMap": "v1", "Secret": "v1", "PersistentVolumeClaim": "v1",
		"NetworkPolicy": "networking.k8s.io/v1", "HorizontalPodAutoscaler": "autoscaling/v2",
		"PodDisruptionBudget": "policy/v1",
	}[kind]
	if want == "" {
		return fmt.Errorf("kind %s is not checked by this test: add it", kind)
	}
	if apiVersion != want {
		return fmt.Errorf("apiVersion %s, want %s", apiVersion, want)
	}
	r.raw = append(r.raw, data)
	switch kind {
	case "Deployment":
		r.deployments = append(r.deployments, appsv1.Deployment{})
		dst = &r.deployments[len(r.deployments)-1]
	case "StatefulSet":
		r.statefulSets = append(r.statefulSets, appsv1.StatefulSet{})
		dst = &r.statefulSets[len(r.statefulSets)-1]
	case "Service":
		r.services = append(r.services, corev1.Service{})
		dst = &r.services[len(r.services)-1]
	case "ConfigMap":
		r.configMaps = append(r.configMaps, corev1.ConfigMap{})
		dst = &r.configMaps[len(r.configMaps)-1]
	case "Secret":
		r.secrets = append(r.secrets, corev1.Secret{})
		dst = &r.secrets[len(r.secrets)-1]
	case "PersistentVolumeClaim":
		r.pvcs = append(r.pvcs, corev1.PersistentVolumeClaim{})
		dst = &r.pvcs[len(r.pvcs)-1]
	case "NetworkPolicy":
		r.netpols = append(r.netpols, networkingv1.NetworkPolicy{})
		dst = &r.netpols[len(r.netpols)-1]
	case "HorizontalPodAutoscaler":
		r.hpas = append(r.hpas, autoscalingv2.HorizontalPodAutoscaler{})
		dst = &r.hpas[len(r.hpas)-1]
	case "PodDisruptionBudget":
		r.pdbs = append(r.pdbs, policyv1.PodDisruptionBudget{})
		dst = &r.pdbs[len(r.pdbs)-1]
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("strict decode: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the object")
	}
	return nil
}

func (r *rendering) toold(t *testing.T) *appsv1.Deployment {
	t.Helper()
	for i := range r.deployments {
		if r.deployments[i].Name == "toold" {
			return &r.deployments[i]
		}
	}
	t.Fatalf("%s: no Deployment toold", r.name)
	return nil
}

func (r *rendering) service(name string) *corev1.Service {
	for i := range r.services {
		if r.services[i].Name == name {
			return &r.services[i]
		}
	}
	return nil
}

// podSpecs are every pod template of the rendering, named for messages.
func (r *rendering) podSpecs() map[string]*corev1.PodTemplateSpec {
	pods := map[string]*corev1.PodTemplateSpec{}
	for i := range r.deployments {
		pods["Deployment/"+r.deployments[i].Name] = &r.deployments[i].Spec.Template
	}
	for i := range r.statefulSets {
		pods["StatefulSet/"+r.statefulSets[i].Name] = &r.statefulSets[i].Spec.Template
	}
	return pods
}

func TestEveryWorkloadIsHardened(t *testing.T) {
	for _, r := range renderings(t) {
		for name, tmpl := range r.podSpecs() {
			t.Run(r.name+"/"+name, func(t *testing.T) {
				pod := tmpl.Spec
				if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
					t.Error("automountServiceAccountToken is not false")
				}
				if pod.HostNetwork || pod.HostPID || pod.HostIPC {
					t.Error("uses a host namespace")
				}
				psc := pod.SecurityContext
				if psc == nil {
					psc = &corev1.PodSecurityContext{}
				}
				for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
					sc := c.SecurityContext
					if sc == nil {
						t.Errorf("container %s: no securityContext", c.Name)
						continue
					}
					if !isTrue(sc.RunAsNonRoot) && !(sc.RunAsNonRoot == nil && isTrue(psc.RunAsNonRoot)) {
						t.Errorf("container %s: runAsNonRoot is not true", c.Name)
					}
					if uid := firstInt64(sc.RunAsUser, psc.RunAsUser); uid == nil || *uid == 0 {
						t.Errorf("container %s: no non-zero runAsUser", c.Name)
					}
					if !isTrue(sc.ReadOnlyRootFilesystem) {
						t.Errorf("container %s: readOnlyRootFilesystem is not true", c.Name)
					}
					if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
						t.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name)
					}
					if isTrue(sc.Privileged) {
						t.Errorf("container %s: privileged", c.Name)
					}
					if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
						t.Errorf("container %s: capabilities %+v, want drop [ALL] and nothing added", c.Name, sc.Capabilities)
					}
					seccomp := sc.SeccompProfile
					if seccomp == nil {
						seccomp = psc.SeccompProfile
					}
					if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
						t.Errorf("container %s: seccomp profile %+v, want RuntimeDefault", c.Name, seccomp)
					}
					checkImage(t, c)
					checkResources(t, c)
				}
			})
		}
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

func firstInt64(vs ...*int64) *int64 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// checkImage wants a tag or digest that says which build runs: no
// "latest", no bare name.
func checkImage(t *testing.T, c corev1.Container) {
	t.Helper()
	if strings.Contains(c.Image, "@sha256:") {
		return
	}
	name := c.Image[strings.LastIndex(c.Image, "/")+1:]
	i := strings.LastIndex(name, ":")
	if i < 0 {
		t.Errorf("container %s: image %q has no tag", c.Name, c.Image)
		return
	}
	if tag := name[i+1:]; tag == "" || tag == "latest" {
		t.Errorf("container %s: image %q: tag %q", c.Name, c.Image, tag)
	}
}

func checkResources(t *testing.T, c corev1.Container) {
	t.Helper()
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := c.Resources.Requests[res]; !ok || q.IsZero() {
			t.Errorf("container %s: no %s request", c.Name, res)
		}
	}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok || q.IsZero() {
		t.Errorf("container %s: no memory limit", c.Name)
	}
	if req, lim := c.Resources.Requests[corev1.ResourceMemory], c.Resources.Limits[corev1.ResourceMemory]; req.Cmp(lim) > 0 {
		t.Errorf("container %s: memory request %s above its limit %s", c.Name, req.String(), lim.String())
	}
}

// tooldFlags is what toold would parse from the container: TOOLD_*
// variables with literal values first, then the arguments, which win.
func tooldFlags(t *testing.T, c corev1.Container) map[string]string {
	t.Helper()
	if len(c.Command) > 0 {
		t.Fatalf("container %s: command %q replaces the image's entrypoint", c.Name, c.Command)
	}
	flags := map[string]string{}
	for _, e := range c.Env {
		if name, ok := strings.CutPrefix(e.Name, "TOOLD_"); ok && e.ValueFrom == nil {
			flags[strings.ToLower(strings.ReplaceAll(name, "_", "-"))] = e.Value
		}
	}
	args := c.Args
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			name, ok = strings.CutPrefix(a, "-")
		}
		if !ok || name == "" {
			t.Fatalf("container %s: argument %q is not a flag", c.Name, a)
		}
		if n, v, ok := strings.Cut(name, "="); ok {
			flags[n] = v
		} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			flags[name], args = args[0], args[1:]
		} else {
			flags[name] = "true"
		}
	}
	return flags
}

func duration(t *testing.T, flags map[string]string, name string, def time.Duration) time.Duration {
	t.Helper()
	v, ok := flags[name]
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("--%s %q: %v", name, v, err)
	}
	return d
}

func port(t *testing.T, flag, addr string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("--%s %q: %v", flag, addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("--%s %q: %v", flag, addr, err)
	}
	return int32(n)
}

func containerPort(c corev1.Container, name string) int32 {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

func TestTooldDeployment(t *testing.T) {
	for _, r := range renderings(t) {
		t.Run(r.name, func(t *testing.T) {
			d := r.toold(t)
			pod := d.Spec.Template.Spec
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers, want 1", len(pod.Containers))
			}
			c := pod.Containers[0]
			flags := tooldFlags(t, c)

			// The gRPC port is the one toold listens on, and the Service
			// sends to it.
			grpcPort := containerPort(c, "grpc")
			if grpcPort == 0 || grpcPort != port(t, "listen", flags["listen"]) {
				t.Errorf("container port grpc %d, --listen %q", grpcPort, flags["listen"])
			}
			if ip, _, _ := net.SplitHostPort(flags["listen"]); ip != "0.0.0.0" && ip != "" && ip != "::" {
				t.Errorf("--listen %q does not accept connections from other pods", flags["listen"])
			}
			svc := r.service("toold")
			if svc == nil {
				t.Fatal("no Service toold")
			}
			if !selects(svc.Spec.Selector, d.Spec.Template.Labels) {
				t.Errorf("Service selector %v does not select the pods (%v)", svc.Spec.Selector, d.Spec.Template.Labels)
			}
			if len(svc.Spec.Ports) == 0 || svc.Spec.Ports[0].TargetPort != intstr.FromString("grpc") {
				t.Errorf("Service ports %+v, want targetPort grpc", svc.Spec.Ports)
			}
			if !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
				t.Errorf("Deployment selector %v does not select its pods", d.Spec.Selector.MatchLabels)
			}

			// Probes: native gRPC, on the gRPC port, or on --health-listen
			// when that is set (TLS on the main port).
			probePort := grpcPort
			if hl := flags["health-listen"]; hl != "" {
				probePort = port(t, "health-listen", hl)
				if containerPort(c, "health") != probePort {
					t.Errorf("--health-listen %q is not the container port health", hl)
				}
			}
			for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe, "startup": c.StartupProbe} {
				if p == nil || p.GRPC == nil {
					t.Errorf("%s probe %+v, want a gRPC probe", name, p)
					continue
				}
				if p.GRPC.Port != probePort {
					t.Errorf("%s probe port %d, want %d", name, p.GRPC.Port, probePort)
				}
				// Readiness follows the store; liveness and startup ask
				// only whether the process is alive, so that a store
				// outage does not restart every replica.
				want := server.LivenessService
				if name == "readiness" {
					want = ""
				}
				got := ""
				if p.GRPC.Service != nil {
					got = *p.GRPC.Service
				}
				if got != want {
					t.Errorf("%s probe asks health service %q, want %q", name, got, want)
				}
			}

			// Connections age out, so that clients rebalance onto
			// replicas added later; running streams get a grace period.
			if age := duration(t, flags, "max-connection-age", server.DefaultMaxConnectionAge); age <= 0 {
				t.Errorf("--max-connection-age %v: clients never rebalance", age)
			}
			if grace := duration(t, flags, "max-connection-age-grace", server.DefaultMaxConnectionAgeGrace); grace <= 0 {
				t.Errorf("--max-connection-age-grace %v cuts running streams", grace)
			}
			checkReplicas(t, r, d)

			// Termination: the grace period covers the preStop delay, the
			// drain and toold's shutdown, with room left.
			if pod.TerminationGracePeriodSeconds == nil {
				t.Fatal("no terminationGracePeriodSeconds")
			}
			grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
			var preStop time.Duration
			if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
				t.Error("no preStop sleep")
			} else {
				preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
				if preStop <= 0 {
					t.Errorf("preStop sleep %v", preStop)
				}
			}
			// --shutdown-timeout is the older name of --drain-timeout.
			drain := duration(t, flags, "drain-timeout", duration(t, flags, "shutdown-timeout", 30*time.Second))
			delay := duration(t, flags, "drain-delay", 0)
			if need := preStop + delay + drain; grace <= need {
				t.Errorf("terminationGracePeriodSeconds %v, not above preStop %v + --drain-delay %v + --drain-timeout %v", grace, preStop, delay, drain)
			}

			// Metrics: the port toold serves them on is declared, offered
			// by the Service and open to the scrapers' namespaces.
			if ml := flags["metrics-listen"]; ml != "" {
				mp := port(t, "metrics-listen", ml)
				if containerPort(c, "metrics") != mp {
					t.Errorf("--metrics-listen %q is not the container port metrics", ml)
				}
				if !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.TargetPort == intstr.FromString("metrics") }) {
					t.Error("the Service does not offer the metrics port")
				}
				if !admits(r, "toold.io/metrics", mp) {
					t.Errorf("the NetworkPolicy admits no namespace labelled toold.io/metrics=true to port %d", mp)
				}
			}

			checkVolumes(t, r, pod, c, flags)
			checkNetworkPolicy(t, r, d, grpcPort)
		})
	}
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func mountOf(c corev1.Container, volume string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].Name == volume {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func volumeAt(t *testing.T, pod corev1.PodSpec, c corev1.Container, file string) (*corev1.Volume, *corev1.VolumeMount) {
	t.Helper()
	for i, v := range pod.Volumes {
		m := mountOf(c, v.Name)
		if m == nil {
			continue
		}
		if rel, err := filepath.Rel(m.MountPath, file); err == nil && !strings.HasPrefix(rel, "..") {
			return &pod.Volumes[i], m
		}
	}
	t.Fatalf("no volume is mounted at %s", file)
	return nil, nil
}

func checkVolumes(t *testing.T, r *rendering, pod corev1.PodSpec, c corev1.Container, flags map[string]string) {
	t.Helper()
	// Workspaces: writable, emptyDir or a claim in the rendering.
	ws := flags["workspace-root"]
	v, m := volumeAt(t, pod, c, ws)
	if m.ReadOnly || m.MountPath != ws {
		t.Errorf("workspace root %s: mount %+v", ws, m)
	}
	switch {
	case v.EmptyDir != nil:
	case v.PersistentVolumeClaim != nil:
		if !slices.ContainsFunc(r.pvcs, func(p corev1.PersistentVolumeClaim) bool { return p.Name == v.PersistentVolumeClaim.ClaimName }) {
			t.Errorf("workspace claim %s is not in the rendering", v.PersistentVolumeClaim.ClaimName)
		}
	default:
		t.Errorf("workspace volume %+v: want emptyDir or a claim", v.VolumeSource)
	}
	// /tmp is writable although the root filesystem is not.
	if v, m := volumeAt(t, pod, c, "/tmp"); m.ReadOnly || v.EmptyDir == nil {
		t.Errorf("/tmp: volume %+v mount %+v, want a writable emptyDir", v.VolumeSource, m)
	}

	// Settings from a ConfigMap of the rendering, which toold can parse.
	settings := flags["settings"]
	if settings == "" {
		t.Fatal("no --settings")
	}
	v, m = volumeAt(t, pod, c, settings)
	if v.ConfigMap == nil || !m.ReadOnly {
		t.Fatalf("settings: volume %+v mount %+v, want a read-only ConfigMap", v.VolumeSource, m)
	}
	var cm *corev1.ConfigMap
	for i := range r.configMaps {
		if r.configMaps[i].Name == v.ConfigMap.Name {
			cm = &r.configMaps[i]
		}
	}
	if cm == nil {
		t.Fatalf("ConfigMap %s is not in the rendering", v.ConfigMap.Name)
	}
	rel, _ := filepath.Rel(m.MountPath, settings)
	data, ok := cm.Data[rel]
	if !ok {
		t.Fatalf("ConfigMap %s has no key %s", cm.Name, rel)
	}
	if _, err := policy.ParseSettings([]byte(data)); err != nil {
		t.Errorf("settings in ConfigMap %s: %v", cm.Name, err)
	}

	// Tokens from a Secret.
	if flags["auth"] != "token" {
		t.Errorf("--auth %q, want token", flags["auth"])
	}
	v, m = volumeAt(t, pod, c, flags["auth-tokens"])
	if v.Secret == nil || v.Secret.SecretName != "toold-tokens" || !m.ReadOnly {
		t.Errorf("tokens: volume %+v mount %+v, want the Secret toold-tokens, read-only", v.VolumeSource, m)
	}
}

// checkNetworkPolicy wants a policy on toold's pods that admits the
// orchestrator's namespace to the gRPC port and lets toold resolve names.
func checkNetworkPolicy(t *testing.T, r *rendering, d *appsv1.Deployment, grpcPort int32) {
	t.Helper()
	var np *networkingv1.NetworkPolicy
	for i := range r.netpols {
		if r.netpols[i].Name == "toold" {
			np = &r.netpols[i]
		}
	}
	if np == nil {
		t.Fatal("no NetworkPolicy toold")
	}
	if !selects(np.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("NetworkPolicy selects %v, not toold's pods", np.Spec.PodSelector.MatchLabels)
	}
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		t.Errorf("policyTypes %v, want Ingress and Egress", np.Spec.PolicyTypes)
	}
	for _, rule := range np.Spec.Ingress {
		if len(rule.From) == 0 {
			t.Errorf("ingress rule %+v admits every source", rule)
		}
	}
	if !admits(r, "toold.io/client", grpcPort) {
		t.Error("no ingress from namespaces labelled toold.io/client=true to the gRPC port")
	}
	dns := false
	for _, rule := range np.Spec.Egress {
		for _, to := range rule.To {
			if to.PodSelector != nil && to.PodSelector.MatchLabels["k8s-app"] == "kube-dns" && len(to.PodSelector.MatchLabels) == 1 &&
				allowsPort(rule.Ports, corev1.ProtocolUDP, 53) && allowsPort(rule.Ports, corev1.ProtocolTCP, 53) {
				dns = true
			}
		}
	}
	if !dns {
		t.Error("no egress to kube-dns on port 53")
	}
}

// admits reports whether the policy toold lets pods of namespaces labelled
// label=true reach port.
func admits(r *rendering, label string, port int32) bool {
	for _, np := range r.netpols {
		if np.Name != "toold" {
			continue
		}
		for _, rule := range np.Spec.Ingress {
			for _, from := range rule.From {
				if from.NamespaceSelector != nil && from.NamespaceSelector.MatchLabels[label] == "true" && from.PodSelector == nil && from.IPBlock == nil &&
					allowsPort(rule.Ports, corev1.ProtocolTCP, port) {
					return true
				}
			}
		}
	}
	return false
}

func allowsPort(ports []networkingv1.NetworkPolicyPort, proto corev1.Protocol, port int32) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		pr := corev1.ProtocolTCP
		if p.Protocol != nil {
			pr = *p.Protocol
		}
		if pr == proto && (p.Port == nil || p.Port.IntValue() == int(port)) {
			return true
		}
	}
	return false
}

// egressTo reports whether some egress rule of the policy toold lets toold
// reach port on pods with the given labels (nil: anywhere).
func egressTo(r *rendering, labels map[string]string, port int32) bool {
	for _, np := range tooldPolicies(r) {
		for _, rule := range np.Spec.Egress {
			if !allowsPort(rule.Ports, corev1.ProtocolTCP, port) {
				continue
			}
			if len(rule.To) == 0 {
				return true
			}
			for _, to := range rule.To {
				if labels != nil && to.PodSelector != nil && to.NamespaceSelector == nil && selects(to.PodSelector.MatchLabels, labels) {
					return true
				}
			}
		}
	}
	return false
}

func byName(rs []*rendering, name string) *rendering {
	for _, r := range rs {
		if r.name == name {
			return r
		}
	}
	return nil
}

func TestDevOverlayRunsRedisBesideToold(t *testing.T) {
	r := byName(renderings(t), "overlays/dev")
	if len(r.statefulSets) != 1 {
		t.Fatalf("%d StatefulSets, want one Redis", len(r.statefulSets))
	}
	redis := r.statefulSets[0]
	if redis.Spec.Replicas == nil || *redis.Spec.Replicas != 1 {
		t.Errorf("Redis replicas %v, want 1", redis.Spec.Replicas)
	}
	if img := redis.Spec.Template.Spec.Containers[0].Image; !strings.HasPrefix(img, "redis:") {
		t.Errorf("Redis image %q", img)
	}
	svc := r.service(redis.Spec.ServiceName)
	if svc == nil {
		t.Fatalf("no Service %s for the StatefulSet", redis.Spec.ServiceName)
	}
	if !selects(svc.Spec.Selector, redis.Spec.Template.Labels) {
		t.Errorf("Service %s does not select the Redis pods", svc.Name)
	}

	c := r.toold(t).Spec.Template.Spec.Containers[0]
	flags := tooldFlags(t, c)
	u, err := url.Parse(flags["redis-url"])
	if err != nil || u.Scheme != "redis" {
		t.Fatalf("--redis-url %q", flags["redis-url"])
	}
	if u.Hostname() != svc.Name || u.Port() != strconv.Itoa(int(svc.Spec.Ports[0].Port)) {
		t.Errorf("--redis-url %q does not name the Service %s:%d", flags["redis-url"], svc.Name, svc.Spec.Ports[0].Port)
	}
	if !egressTo(r, redis.Spec.Template.Labels, svc.Spec.Ports[0].Port) {
		t.Error("the NetworkPolicy does not let toold reach Redis")
	}
}

func TestProdOverlayScalesWithExternalRedis(t *testing.T) {
	r := byName(renderings(t), "overlays/prod")
	d := r.toold(t)
	if len(r.statefulSets) != 0 {
		t.Errorf("prod runs StatefulSets %v; Redis is external", r.statefulSets)
	}

	c := d.Spec.Template.Spec.Containers[0]
	var redisURL *corev1.EnvVar
	for i := range c.Env {
		if c.Env[i].Name == "TOOLD_REDIS_URL" {
			redisURL = &c.Env[i]
		}
	}
	if redisURL == nil || redisURL.ValueFrom == nil || (redisURL.ValueFrom.SecretKeyRef == nil && redisURL.ValueFrom.ConfigMapKeyRef == nil) {
		t.Errorf("TOOLD_REDIS_URL %+v, want it from a Secret or ConfigMap", redisURL)
	}
	// The default Redis peer: pods labelled app.kubernetes.io/name=redis
	// in toold's namespace, until the operator names theirs.
	for _, p := range []int32{6379, 6380} {
		if !egressTo(r, map[string]string{"app.kubernetes.io/name": "redis"}, p) {
			t.Errorf("no NetworkPolicy lets toold reach pods app.kubernetes.io/name=redis on %d", p)
		}
	}

	if len(r.hpas) != 1 {
		t.Fatalf("%d HorizontalPodAutoscalers, want 1", len(r.hpas))
	}
	hpa := r.hpas[0]
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
		t.Errorf("HPA scales %+v, not the Deployment %s", ref, d.Name)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < *hpa.Spec.MinReplicas {
		t.Errorf("HPA replicas %v..%d, want at least 2", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	if len(hpa.Spec.Metrics) == 0 {
		t.Error("HPA has no metric")
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		t.Error("HPA on CPU utilisation without a CPU request")
	}

	if len(r.pdbs) != 1 {
		t.Fatalf("%d PodDisruptionBudgets, want 1", len(r.pdbs))
	}
	pdb := r.pdbs[0]
	if pdb.Spec.Selector == nil || !selects(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("PDB selects %v, not toold's pods", pdb.Spec.Selector)
	}
	if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable == nil {
		t.Error("PDB has neither maxUnavailable nor minAvailable")
	}
	if pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int && pdb.Spec.MinAvailable.IntVal >= *hpa.Spec.MinReplicas {
		t.Errorf("PDB minAvailable %v blocks every eviction at %d replicas", pdb.Spec.MinAvailable, *hpa.Spec.MinReplicas)
	}
}

// The Dockerfile is read as an operator reviewing it would: multi-stage, a
// static binary, pinned base images, the tools' programs, a non-root user.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var froms []string
	var user string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			froms = append(froms, fields[1])
		case "USER":
			user = fields[1]
		}
	}
	if len(froms) < 2 {
		t.Errorf("FROM lines %v: want a build stage and a runtime stage", froms)
	}
	for _, img := range froms {
		checkImage(t, corev1.Container{Name: "FROM", Image: img})
	}
	for _, want := range []string{"CGO_ENABLED=0", "bash", "ripgrep", "git", "ca-certificates", "jq"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("USER %q: want a numeric non-root uid", user)
	}
}

// tooldPolicies are the NetworkPolicies that select toold's pods: they add
// up, so every one of them decides where toold may go.
func tooldPolicies(r *rendering) []networkingv1.NetworkPolicy {
	var out []networkingv1.NetworkPolicy
	labels := map[string]string{"app.kubernetes.io/name": "toold"}
	for _, np := range r.netpols {
		if selects(np.Spec.PodSelector.MatchLabels, labels) {
			out = append(out, np)
		}
	}
	return out
}

// checkReplicas: a Deployment that an HPA scales has no replica count of
// its own in the rendering, or every `kubectl apply -k` puts it back.
func checkReplicas(t *testing.T, r *rendering, d *appsv1.Deployment) {
	t.Helper()
	for _, hpa := range r.hpas {
		if ref := hpa.Spec.ScaleTargetRef; ref.Kind == "Deployment" && ref.Name == d.Name && d.Spec.Replicas != nil {
			t.Errorf("Deployment %s sets replicas %d although HPA %s owns the count", d.Name, *d.Spec.Replicas, hpa.Name)
		}
	}
}

// redisPorts are the ports a Redis deployment answers on: plain, TLS (as
// managed services offer it), Sentinel.
var redisPorts = []int32{6379, 6380, 26379}

// No policy on toold's pods opens the Redis ports to every address: each
// rule that allows one names its peers, none of them the whole internet.
func TestRedisEgressIsNarrow(t *testing.T) {
	for _, r := range renderings(t) {
		t.Run(r.name, func(t *testing.T) {
			for _, np := range tooldPolicies(r) {
				for _, rule := range np.Spec.Egress {
					for _, p := range redisPorts {
						if !allowsPort(rule.Ports, corev1.ProtocolTCP, p) {
							continue
						}
						if len(rule.To) == 0 {
							t.Errorf("NetworkPolicy %s: an egress rule opens port %d to every address", np.Name, p)
						}
						for _, to := range rule.To {
							if to.IPBlock != nil {
								if _, n, err := net.ParseCIDR(to.IPBlock.CIDR); err != nil {
									t.Errorf("NetworkPolicy %s: ipBlock %q: %v", np.Name, to.IPBlock.CIDR, err)
								} else if ones, _ := n.Mask.Size(); ones == 0 {
									t.Errorf("NetworkPolicy %s: port %d open to %s", np.Name, p, to.IPBlock.CIDR)
								}
							}
							if to.NamespaceSelector != nil && to.PodSelector == nil && len(to.NamespaceSelector.MatchLabels) == 0 && len(to.NamespaceSelector.MatchExpressions) == 0 {
								t.Errorf("NetworkPolicy %s: port %d open to every namespace", np.Name, p)
							}
						}
					}
				}
			}
		})
	}
}

// The dev Redis answers only toold's pods, and only with the password of
// a Secret of the rendering, which toold's --redis-url carries.
func TestDevRedisIsClosed(t *testing.T) {
	r := byName(renderings(t), "overlays/dev")
	redis := r.statefulSets[0]
	rc := redis.Spec.Template.Spec.Containers[0]
	tooldPod := r.toold(t).Spec.Template

	// Ingress: a policy on the Redis pods admits toold's pods alone.
	var ingress *networkingv1.NetworkPolicy
	for i, np := range r.netpols {
		if selects(np.Spec.PodSelector.MatchLabels, redis.Spec.Template.Labels) && slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
			ingress = &r.netpols[i]
		}
	}
	if ingress == nil {
		t.Fatal("no ingress NetworkPolicy on the Redis pods")
	}
	if len(ingress.Spec.Ingress) == 0 {
		t.Error("the Redis policy admits nothing, not even toold")
	}
	for _, rule := range ingress.Spec.Ingress {
		if len(rule.From) == 0 {
			t.Errorf("a Redis ingress rule admits every source: %+v", rule)
		}
		for _, from := range rule.From {
			if from.IPBlock != nil || from.NamespaceSelector != nil || from.PodSelector == nil || !selects(from.PodSelector.MatchLabels, tooldPod.Labels) {
				t.Errorf("Redis admits %+v, not only toold's pods", from)
			}
		}
	}

	// The password: a Secret of the rendering, a value that fits a URL
	// unescaped.
	secretEnv := func(c corev1.Container, name string) (string, string, int) {
		for i, e := range c.Env {
			if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				return e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key, i
			}
		}
		return "", "", -1
	}
	secName, key, _ := secretEnv(rc, "REDIS_PASSWORD")
	if secName == "" {
		t.Fatal("Redis has no REDIS_PASSWORD from a Secret")
	}
	var password string
	for _, s := range r.secrets {
		if s.Name == secName {
			password = string(s.Data[key])
		}
	}
	if len(password) < 16 || strings.Trim(password, "0123456789abcdefABCDEF") != "" {
		t.Errorf("password in Secret %s key %s: %d characters, want at least 16 hex digits (it goes into a URL)", secName, key, len(password))
	}
	if !slices.Contains(rc.Args, "--requirepass") || !slices.Contains(rc.Args, "$(REDIS_PASSWORD)") {
		t.Errorf("Redis args %q do not require the password", rc.Args)
	}
	if n, _, _ := secretEnv(rc, "REDISCLI_AUTH"); n != secName {
		t.Error("redis-cli (the readiness probe) does not get the password")
	}

	// toold: the same Secret, expanded into the URL by kubelet, which
	// expands only variables defined before.
	c := tooldPod.Spec.Containers[0]
	tn, tk, at := secretEnv(c, "REDIS_PASSWORD")
	if tn != secName || tk != key {
		t.Fatalf("toold's REDIS_PASSWORD from %s/%s, want %s/%s", tn, tk, secName, key)
	}
	u, err := url.Parse(tooldFlags(t, c)["redis-url"])
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := u.User.Password(); p != "$(REDIS_PASSWORD)" {
		t.Errorf("--redis-url password %q, want $(REDIS_PASSWORD)", p)
	}
	for i, e := range c.Env {
		if e.Name == "TOOLD_REDIS_URL" && i < at {
			t.Error("TOOLD_REDIS_URL comes before REDIS_PASSWORD: kubelet would not expand it")
		}
	}
}

// The headless Service for client-side balancing resolves to toold's ready
// pods on the gRPC port.
func TestHeadlessServiceComponent(t *testing.T) {
	r := byName(renderings(t), allComponents)
	svc := r.service("toold-headless")
	if svc == nil {
		t.Fatal("no Service toold-headless with components/headless-service")
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("clusterIP %q, want None (headless)", svc.Spec.ClusterIP)
	}
	if svc.Spec.PublishNotReadyAddresses {
		t.Error("publishes replicas that are not ready (a store outage would not take them out of DNS)")
	}
	if !selects(svc.Spec.Selector, r.toold(t).Spec.Template.Labels) {
		t.Errorf("selector %v does not select toold's pods", svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("grpc") {
		t.Errorf("ports %+v, want the gRPC port alone", svc.Spec.Ports)
	}
}
