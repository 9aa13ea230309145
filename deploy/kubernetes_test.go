package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// manifests is a set of Kubernetes objects, decoded into the API's own
// types (k8s.io/api) with unknown fields refused.
type manifests struct {
	deployments []appsv1.Deployment
	services    []corev1.Service
	secrets     []corev1.Secret
	jobs        []batchv1.Job
}

// kinds maps apiVersion/kind to a decoder into the typed object.
func (m *manifests) add(doc []byte) error {
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	strict := func(into any) error { return yaml.UnmarshalStrict(doc, into) }
	switch head.APIVersion + "/" + head.Kind {
	case "apps/v1/Deployment":
		var d appsv1.Deployment
		if err := strict(&d); err != nil {
			return err
		}
		m.deployments = append(m.deployments, d)
	case "v1/Service":
		var s corev1.Service
		if err := strict(&s); err != nil {
			return err
		}
		m.services = append(m.services, s)
	case "v1/Secret":
		var s corev1.Secret
		if err := strict(&s); err != nil {
			return err
		}
		m.secrets = append(m.secrets, s)
	case "batch/v1/Job":
		var j batchv1.Job
		if err := strict(&j); err != nil {
			return err
		}
		m.jobs = append(m.jobs, j)
	default:
		return fmt.Errorf("apiVersion %q kind %q: not a kind this test knows (add it)", head.APIVersion, head.Kind)
	}
	return nil
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// parse decodes every document of the given YAML texts.
func parse(texts ...string) (*manifests, error) {
	m := &manifests{}
	for _, text := range texts {
		for _, doc := range docSep.Split(text, -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			if err := m.add([]byte(doc)); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// check returns what is inconsistent between the objects: what the API
// server would refuse (a selector that does not match its template, a
// Job's restart policy) and what would fail at run time (a probe or a
// Service naming a port no container declares, a Secret or volume that
// is not there, a container without requests).
func (m *manifests) check() []string {
	var probs []string
	add := func(f string, args ...any) { probs = append(probs, fmt.Sprintf(f, args...)) }
	secrets := map[string]*corev1.Secret{}
	for i := range m.secrets {
		secrets[m.secrets[i].Name] = &m.secrets[i]
	}
	pod := func(owner string, spec corev1.PodSpec) {
		volumes := map[string]bool{}
		for _, v := range spec.Volumes {
			volumes[v.Name] = true
		}
		for _, c := range spec.Containers {
			where := owner + "/" + c.Name
			if c.Image == "" {
				add("%s: no image", where)
			}
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
				add("%s: no cpu and memory requests", where)
			}
			ports := map[string]bool{}
			for _, p := range c.Ports {
				ports[p.Name] = true
			}
			for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
				if probe != nil && probe.HTTPGet != nil && probe.HTTPGet.Port.StrVal != "" && !ports[probe.HTTPGet.Port.StrVal] {
					add("%s: a probe names port %q, which the container does not declare", where, probe.HTTPGet.Port.StrVal)
				}
			}
			for _, vm := range c.VolumeMounts {
				if !volumes[vm.Name] {
					add("%s: mounts volume %q, which the pod does not declare", where, vm.Name)
				}
			}
			for _, ef := range c.EnvFrom {
				if ef.SecretRef != nil && secrets[ef.SecretRef.Name] == nil {
					add("%s: envFrom Secret %q is not among the manifests", where, ef.SecretRef.Name)
				}
			}
			for _, e := range c.Env {
				if r := e.ValueFrom; r != nil && r.SecretKeyRef != nil {
					s := secrets[r.SecretKeyRef.Name]
					if s == nil {
						add("%s: env %s: Secret %q is not among the manifests", where, e.Name, r.SecretKeyRef.Name)
					} else if _, ok := s.StringData[r.SecretKeyRef.Key]; !ok {
						add("%s: env %s: Secret %q has no key %q", where, e.Name, r.SecretKeyRef.Name, r.SecretKeyRef.Key)
					}
				}
			}
		}
	}
	for _, d := range m.deployments {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || d.Spec.Selector == nil {
			add("Deployment %s: bad selector: %v", d.Name, err)
		} else if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			add("Deployment %s: the selector does not match the pod template's labels", d.Name)
		}
		pod("Deployment "+d.Name, d.Spec.Template.Spec)
	}
	for _, s := range m.services {
		var target *appsv1.Deployment
		for i, d := range m.deployments {
			if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				target = &m.deployments[i]
			}
		}
		if target == nil {
			add("Service %s: its selector matches no Deployment's pods", s.Name)
			continue
		}
		for _, p := range s.Spec.Ports {
			if name := p.TargetPort.StrVal; name != "" &&
				!slices.ContainsFunc(target.Spec.Template.Spec.Containers, func(c corev1.Container) bool {
					return slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == name })
				}) {
				add("Service %s: targetPort %q is not a port of Deployment %s", s.Name, name, target.Name)
			}
		}
	}
	for _, j := range m.jobs {
		if rp := j.Spec.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
			add("Job %s: restartPolicy must be Never or OnFailure, not %q", j.Name, rp)
		}
		pod("Job "+j.Name, j.Spec.Template.Spec)
	}
	return probs
}

// TestKubernetesManifests: the Kubernetes example decodes into the API's
// own types with no unknown field, and its objects fit together.
func TestKubernetesManifests(t *testing.T) {
	files, err := filepath.Glob("kubernetes/*.yaml")
	require.NoError(t, err)
	var texts []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		texts = append(texts, string(b))
	}
	m, err := parse(texts...)
	require.NoError(t, err)
	assert.Len(t, m.deployments, 2, "replicas and workers")
	assert.Len(t, m.services, 1)
	assert.Len(t, m.secrets, 1)
	assert.Len(t, m.jobs, 1)
	assert.Empty(t, m.check())
}

// TestKubernetesCheckFindsMistakes: the checks above catch what they claim.
func TestKubernetesCheckFindsMistakes(t *testing.T) {
	const base = `apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
        - name: c
          image: i
          ports: [{name: http, containerPort: 1}]
          resources: {requests: {cpu: "1", memory: 1Gi}}
`
	for _, tt := range []struct{ name, text, want string }{
		{"unknown field", strings.Replace(base, "image: i", "image: i\n          imagePullPolice: Always", 1), `unknown field "imagePullPolice"`},
		{"bad quantity", strings.Replace(base, "memory: 1Gi", "memory: 1GB!", 1), "quantities must match"},
		{"selector", strings.Replace(base, "labels: {app: a}", "labels: {app: b}", 1), "the selector does not match"},
		{"probe port", strings.Replace(base, "image: i", "image: i\n          readinessProbe: {httpGet: {path: /, port: web}}", 1), `names port "web"`},
		{"secret", strings.Replace(base, "image: i", "image: i\n          envFrom: [{secretRef: {name: keys}}]", 1), `Secret "keys" is not among`},
		{"volume", strings.Replace(base, "image: i", "image: i\n          volumeMounts: [{name: w, mountPath: /w}]", 1), `mounts volume "w"`},
		{"requests", strings.Replace(base, `resources: {requests: {cpu: "1", memory: 1Gi}}`, "resources: {}", 1), "no cpu and memory requests"},
		{"service", base + "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: z}, ports: [{port: 80}]}\n", "matches no Deployment"},
		{"target port", base + "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: a}, ports: [{port: 80, targetPort: web}]}\n", `targetPort "web"`},
		{"job restart", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      restartPolicy: Always\n      containers: [{name: c, image: i, resources: {requests: {cpu: 1, memory: 1Mi}}}]\n", "restartPolicy must be"},
		{"kind", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", "not a kind this test knows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parse(tt.text)
			var got string
			if err != nil {
				got = err.Error()
			} else {
				got = strings.Join(m.check(), "\n")
			}
			assert.Contains(t, got, tt.want)
		})
	}
	m, err := parse(base)
	require.NoError(t, err)
	assert.Empty(t, m.check(), "the base is valid")
}
