package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/hub"
)

// Environment variables of the settings (README: Settings).
const (
	envCacheDir    = "HUBSNAP_CACHE_DIR"
	envHub         = "HUBSNAP_HUB"
	envProject     = "HUBSNAP_PROJECT"
	envEnvironment = "HUBSNAP_ENVIRONMENT"
	envToken       = "HUBSNAP_TOKEN"
	envConfigDir   = "HUBSNAP_CONFIG_DIR"
)

// defaultEnvironment is the environment when nothing names one.
const defaultEnvironment = "dev"

// globalFlags are the setting flags every command takes.
type globalFlags struct {
	cacheDir, hub, project, environment, configDir string
	verbose                                        bool
}

func (g *globalFlags) register(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&g.cacheDir, "cache-dir", "", "cache folder (env "+envCacheDir+"; default $XDG_CACHE_HOME/hubsnap or ~/.cache/hubsnap)")
	f.StringVar(&g.hub, "hub", "", "Hub base URL (env "+envHub+"; default from the context)")
	f.StringVar(&g.project, "project", "", "project name (env "+envProject+"; default from the context)")
	f.StringVar(&g.environment, "environment", "", "environment (env "+envEnvironment+"; default from the context, else dev)")
	f.StringVar(&g.configDir, "config-dir", "", "config folder (env "+envConfigDir+"; default $XDG_CONFIG_HOME/hubsnap or ~/.config/hubsnap)")
	f.BoolVarP(&g.verbose, "verbose", "v", false, "log what hubsnap does to stderr")
}

// value is a resolved setting and where it came from.
type value struct {
	v      string
	source string // "flag --x", "env X", "context NAME", "default", or "" when unset
}

// settings are the resolved settings of one command run: each is flag >
// environment variable > current context > default.
type settings struct {
	context     string // the current context's name, "" for none
	configDir   value
	cacheDir    value
	hub         value
	project     value
	environment value
	token       string // never printed; read by needToken
	tokenSource string
	tokenFile   string // the context's token file, read only when needed
}

// resolver reads one command run's settings from its flags, the
// environment and HOME.
type resolver struct {
	a   *app
	cmd *cobra.Command
}

// flag is a setting from the flag name, when it was given.
func (r resolver) flag(name, v string) func() (value, bool) {
	return func() (value, bool) {
		if r.cmd.Flags().Changed(name) {
			return value{v, "flag --" + name}, true
		}
		return value{}, false
	}
}

// env is a setting from the environment variable name, when it is set
// (setEnv).
func (r resolver) env(name string) func() (value, bool) {
	return func() (value, bool) {
		if v := r.a.setEnv(name); v != "" {
			return value{v, "env " + name}, true
		}
		return value{}, false
	}
}

// setEnv is the value of the environment variable name, or "" when it
// counts as unset: empty, blanks only, or a whole "${...}" placeholder
// that the program starting hubsnap left as it was. An MCP Bundle's
// optional setting that the user leaves empty reaches hubsnap as one of
// those (Claude Desktop passes "${user_config.project}" unchanged when the
// setting has no value), and must not hide the context's value.
func (a *app) setEnv(name string) string {
	v := a.getenv(name)
	t := strings.TrimSpace(v)
	if t == "" || (strings.HasPrefix(t, "${") && strings.HasSuffix(t, "}")) {
		return ""
	}
	return v
}

// home is a folder's default: $XDG/hubsnap when XDG names an absolute
// path, else ~/DOTDIR/hubsnap.
func (r resolver) home(xdg, dotdir string) func() (value, bool) {
	return func() (value, bool) {
		if base := r.a.getenv(xdg); filepath.IsAbs(base) {
			return value{filepath.Join(base, "hubsnap"), "default"}, true
		}
		h := r.a.getenv("HOME")
		if h == "" {
			h = r.a.getenv("USERPROFILE") // Windows
		}
		if h == "" {
			return value{}, false
		}
		return value{filepath.Join(h, dotdir, "hubsnap"), "default"}, true
	}
}

// first is the first of vs that is set, or an unset value.
func first(vs ...func() (value, bool)) value {
	for _, f := range vs {
		if v, ok := f(); ok {
			return v
		}
	}
	return value{}
}

// folders works out the config and cache folders only. It reads no file,
// so a command that needs nothing else (context set, token, import) does
// not depend on the contexts file.
func (a *app) folders(cmd *cobra.Command) *settings {
	r := resolver{a, cmd}
	return &settings{
		configDir: first(r.flag("config-dir", a.flags.configDir), r.env(envConfigDir), r.home("XDG_CONFIG_HOME", ".config")),
		cacheDir:  first(r.flag("cache-dir", a.flags.cacheDir), r.env(envCacheDir), r.home("XDG_CACHE_HOME", ".cache")),
	}
}

// resolve works out all the settings, the current context's included. It
// reads the contexts file but never writes anything.
func (a *app) resolve(cmd *cobra.Command) (*settings, error) {
	r := resolver{a, cmd}
	s := a.folders(cmd)
	var cur *contextConfig
	if s.configDir.v != "" {
		cfg, err := loadConfig(s.configDir.v)
		if err != nil {
			return nil, err
		}
		if cfg.Current != "" {
			s.context = cfg.Current
			cur = cfg.Contexts[cfg.Current]
		}
	}
	fromContext := func(get func(*contextConfig) string) func() (value, bool) {
		return func() (value, bool) {
			if cur != nil && get(cur) != "" {
				return value{get(cur), "context " + s.context}, true
			}
			return value{}, false
		}
	}
	s.hub = first(r.flag("hub", a.flags.hub), r.env(envHub),
		fromContext(func(c *contextConfig) string { return c.Hub }))
	s.project = first(r.flag("project", a.flags.project), r.env(envProject),
		fromContext(func(c *contextConfig) string { return c.Project }))
	s.environment = first(r.flag("environment", a.flags.environment), r.env(envEnvironment),
		fromContext(func(c *contextConfig) string { return c.Environment }),
		func() (value, bool) { return value{defaultEnvironment, "default"}, true })

	if t := strings.TrimSpace(a.setEnv(envToken)); t != "" {
		s.token, s.tokenSource = t, "env "+envToken
	} else if cur != nil && cur.TokenFile != "" {
		s.tokenFile, s.tokenSource = cur.tokenPath(s.configDir.v), "context "+s.context+" token file"
	}
	return s, nil
}

// needToken returns the Hub token ("" for none), reading the context's
// token file only now: commands that do not talk to the Hub never fail on
// a missing token file.
func (s *settings) needToken() (string, error) {
	if s.token != "" || s.tokenFile == "" {
		return s.token, nil
	}
	data, err := os.ReadFile(s.tokenFile)
	if err != nil {
		return "", fmt.Errorf("read the token file of context %q: %w; fix it with `hubsnap context set %s --token-stdin`",
			s.context, err, s.context)
	}
	t := strings.TrimSpace(string(data))
	if t == "" {
		return "", fmt.Errorf("the token file of context %q (%s) is empty", s.context, s.tokenFile)
	}
	s.token = t
	return t, nil
}

// needCache returns the cache folder or explains how to set one.
func (s *settings) needCache() (string, error) {
	if s.cacheDir.v == "" {
		return "", usageErrorf("no cache folder: set --cache-dir or %s (HOME is not set)", envCacheDir)
	}
	return s.cacheDir.v, nil
}

// needConfigDir returns the config folder or explains how to set one.
func (s *settings) needConfigDir() (string, error) {
	if s.configDir.v == "" {
		return "", errNoConfigDir()
	}
	return s.configDir.v, nil
}

// errNoConfigDir explains how to name the config folder when there is
// none.
func errNoConfigDir() error {
	return usageErrorf("no config folder: set --config-dir or %s (HOME is not set)", envConfigDir)
}

// needTarget returns the cache folder and the project and environment a
// command works on, or explains how to set them. The names are checked:
// they become file names in the cache.
func (s *settings) needTarget() (cacheDir, project, environment string, err error) {
	if cacheDir, err = s.needCache(); err != nil {
		return "", "", "", err
	}
	if s.project.v == "" {
		return "", "", "", usageErrorf("no project: set --project, %s, or a context (hubsnap context set)", envProject)
	}
	if err := indexer.CheckName("project (from "+s.project.source+")", s.project.v); err != nil {
		return "", "", "", err
	}
	if err := indexer.CheckName("environment (from "+s.environment.source+")", s.environment.v); err != nil {
		return "", "", "", err
	}
	return cacheDir, s.project.v, s.environment.v, nil
}

// needHub returns a Hub client, logging its requests to log, or explains
// how to name the Hub.
func (s *settings) needHub(log *slog.Logger) (*hub.Client, error) {
	if s.hub.v == "" {
		return nil, usageErrorf("no hub: set --hub, %s, or a context (hubsnap context set)", envHub)
	}
	token, err := s.needToken()
	if err != nil {
		return nil, err
	}
	c, err := hub.New(s.hub.v, hub.Options{Token: token, Log: log})
	if err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, s.hub.source)
	}
	return c, nil
}
