package gateway

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bridle-dev/bridle/mcp"
)

// metrics are the server's Prometheus metrics, on a registry of its own.
// Labels are project ids, agent names (from the token store), known tool
// names and outcomes: never a client-sent string, never a secret.
type metrics struct {
	reg          *prometheus.Registry
	calls        *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	authFailures *prometheus.CounterVec
	backendErrs  *prometheus.CounterVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridle_mcp_calls_total",
		Help: "MCP tool calls, by project, agent, tool and outcome (ok, error, refused, unavailable)."},
		[]string{"project", "agent", "tool", "outcome"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "bridle_mcp_call_duration_seconds",
		Help: "MCP tool call latency, by project and tool.", Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}},
		[]string{"project", "tool"})
	m.authFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridle_auth_failures_total",
		Help: "Refused credentials, by endpoint (mcp or admin)."}, []string{"endpoint"})
	m.backendErrs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridle_backend_errors_total",
		Help: "Backend failures seen by the admin API and readiness checks, by project and backend."}, []string{"project", "backend"})
	m.reg.MustRegister(m.calls, m.latency, m.authFailures, m.backendErrs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, id := range s.ids {
		p := s.projects[id]
		labels := prometheus.Labels{"project": id}
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bridle_mcp_sessions",
			Help: "Open MCP sessions, by project.", ConstLabels: labels}, func() float64 {
			return float64(p.liveSessions())
		}))
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bridle_snapshot_age_seconds",
			Help: "Seconds since the served snapshot was compiled, by project (-1: no snapshot).", ConstLabels: labels}, func() float64 {
			st := p.Status(s.now())
			if !st.Loaded {
				return -1
			}
			return st.AgeSeconds
		}))
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bridle_rules_stale",
			Help: "1 when the project's rules source cannot be read and the last snapshot is served.", ConstLabels: labels}, func() float64 {
			if p.Status(s.now()).Stale {
				return 1
			}
			return 0
		}))
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// observe feeds sessions and metrics from one MCP observation.
func (s *Server) observe(project string, o mcp.Observation) {
	s.sessions.observe(project, o, s.now())
	if o.Kind != "call" {
		return
	}
	tool := o.Tool // a registered name: a client-sent one is never a label
	if tool == "" {
		tool = "unknown"
	}
	agent := o.Agent
	s.metrics.calls.WithLabelValues(project, agent, tool, string(o.Outcome)).Inc()
	s.metrics.latency.WithLabelValues(project, tool).Observe(o.Duration.Seconds())
}
