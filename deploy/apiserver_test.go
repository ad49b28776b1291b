package deploy

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// The API-server check runs when TOOLD_KUBE_APISERVER and TOOLD_ETCD name
// the binaries (`make kube-check` builds kube-apiserver from the Go module
// proxy and installs Debian's etcd); `make test` skips it.
const (
	envAPIServer = "TOOLD_KUBE_APISERVER"
	envEtcd      = "TOOLD_ETCD"
)

// checkNamespace enforces the restricted Pod Security level, as a
// hardened cluster's namespace for toold would.
const checkNamespace = "toold-check"

// TestManifestsOnAPIServer sends every object of the base, every overlay
// and every component to a real kube-apiserver as a server-side dry run
// with strict field validation, in a namespace that enforces the
// restricted Pod Security level; and a Pod made of each workload's
// template, so that the level is enforced on what would run, not only
// warned about. Any error or warning fails the test.
func TestManifestsOnAPIServer(t *testing.T) {
	apiserver, etcd := os.Getenv(envAPIServer), os.Getenv(envEtcd)
	if apiserver == "" || etcd == "" {
		t.Skipf("%s and %s are not set: run `make kube-check`", envAPIServer, envEtcd)
	}
	cfg := startControlPlane(t, apiserver, etcd)
	warnings := &warningLog{}
	cfg.WarningHandler = warnings

	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	ctx := context.Background()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: checkNamespace, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce":         "restricted",
		"pod-security.kubernetes.io/enforce-version": "latest",
		"pod-security.kubernetes.io/warn":            "restricted",
		"pod-security.kubernetes.io/warn-version":    "latest",
	}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No controller manager runs: make the service account Pods use.
	if _, err := cs.CoreV1().ServiceAccounts(checkNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	sent := 0
	for _, r := range renderings(t) {
		for _, raw := range r.raw {
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(raw); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			what := fmt.Sprintf("%s: %s/%s", r.name, obj.GetKind(), obj.GetName())
			gvk := obj.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Errorf("%s: the API server does not serve it: %v", what, err)
				continue
			}
			warnings.take()
			if _, err := dyn.Resource(m.Resource).Namespace(checkNamespace).Create(ctx, obj, dry); err != nil {
				t.Errorf("%s: refused: %v", what, err)
			}
			if w := warnings.take(); len(w) > 0 {
				t.Errorf("%s: warnings: %s", what, strings.Join(w, "; "))
			}
			sent++
		}
		for name, tpl := range r.podSpecs() {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(strings.ReplaceAll(name, "/", "-")), Labels: tpl.Labels}, Spec: *tpl.Spec.DeepCopy()}
			// A StatefulSet's Pods mount the claims of its templates, as
			// the StatefulSet controller would add them.
			for _, ss := range r.statefulSets {
				if "StatefulSet/"+ss.Name != name {
					continue
				}
				for _, vct := range ss.Spec.VolumeClaimTemplates {
					pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: vct.Name, VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: vct.Name + "-" + ss.Name + "-0"}}})
				}
			}
			warnings.take()
			if _, err := cs.CoreV1().Pods(checkNamespace).Create(ctx, pod, dry); err != nil {
				t.Errorf("%s: the Pod of %s is refused in a restricted namespace: %v", r.name, name, err)
			}
			if w := warnings.take(); len(w) > 0 {
				t.Errorf("%s: the Pod of %s: warnings: %s", r.name, name, strings.Join(w, "; "))
			}
			sent++
		}
	}
	if sent < 10 {
		t.Fatalf("only %d objects sent", sent)
	}
	t.Logf("%d objects and Pods accepted by kube-apiserver as a strict dry run", sent)

	// The check can fail: a field the API does not have is refused.
	bad := &unstructured.Unstructured{}
	bad.SetUnstructuredContent(map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "misspelt"},
		"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(80), "targetPrt": int64(80)}}},
	})
	if _, err := dyn.Resource(corev1.SchemeGroupVersion.WithResource("services")).Namespace(checkNamespace).Create(ctx, bad, dry); err == nil || !strings.Contains(err.Error(), "targetPrt") {
		t.Errorf("a misspelt field was not refused: %v", err)
	}
	privileged := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "privileged"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := cs.CoreV1().Pods(checkNamespace).Create(ctx, privileged, dry); err == nil {
		t.Error("a Pod without a restricted security context was admitted: the namespace does not enforce the level")
	}
}

// warningLog collects the API server's warnings (Pod Security's "would
// violate", deprecations, unknown fields under lenient validation).
type warningLog struct {
	mu sync.Mutex
	w  []string
}

func (l *warningLog) HandleWarningHeader(code int, agent, text string) {
	l.mu.Lock()
	l.w = append(l.w, text)
	l.mu.Unlock()
}

func (l *warningLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.w
	l.w = nil
	return w
}

// startControlPlane runs etcd and kube-apiserver on loopback for the test
// and returns a client configuration for an administrator.
func startControlPlane(t *testing.T, apiserver, etcd string) *rest.Config {
	t.Helper()
	dir := t.TempDir()
	etcdClient, etcdPeer, apiPort := freePort(t), freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	start(t, filepath.Join(dir, "etcd.log"), etcd,
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdPeer),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdPeer),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", etcdPeer))

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	writeFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	pub, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pubFile := filepath.Join(dir, "sa.pub")
	writeFile(t, pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	token := rand.Text()
	tokenFile := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokenFile, []byte(token+",admin,admin,system:masters\n"))

	start(t, filepath.Join(dir, "apiserver.log"), apiserver,
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(apiPort), "--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", tokenFile, "--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", pubFile, "--service-account-signing-key-file", keyFile,
		"--service-cluster-ip-range", "10.0.0.0/24",
		// No Service "kubernetes" endpoints to keep: the address is loopback.
		"--endpoint-reconciler-type", "none")

	cfg := &rest.Config{
		Host:            fmt.Sprintf("https://127.0.0.1:%d", apiPort),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		Timeout:         30 * time.Second,
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil && string(body) == "ok" {
			return cfg
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "apiserver.log"))
			t.Fatalf("kube-apiserver not ready: %v %s\n%s", err, body, tail(log, 3000))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// start runs a server until the test ends, its output in logFile.
func start(t *testing.T, logFile, bin string, args ...string) {
	t.Helper()
	out, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		out.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logFile)
			t.Logf("%s:\n%s", filepath.Base(logFile), tail(data, 2000))
		}
	})
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
