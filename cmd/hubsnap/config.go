package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// configFile is the file in the config folder that holds the contexts.
const configFile = "contexts.json"

// config is the contexts file: named contexts and the current one.
type config struct {
	Current  string                    `json:"current,omitempty"`
	Contexts map[string]*contextConfig `json:"contexts"`
}

// contextConfig is one context: a Hub, a project and an environment, and
// where its token is. The token itself is never in this file.
type contextConfig struct {
	Hub         string `json:"hub,omitempty"`
	Project     string `json:"project,omitempty"`
	Environment string `json:"environment,omitempty"`
	// TokenFile is the file holding the context's token, relative to the
	// config folder or absolute.
	TokenFile string `json:"tokenFile,omitempty"`
}

func (c *contextConfig) tokenPath(configDir string) string {
	if filepath.IsAbs(c.TokenFile) {
		return c.TokenFile
	}
	return filepath.Join(configDir, c.TokenFile)
}

// loadConfig reads the contexts file; a missing file is an empty config.
func loadConfig(dir string) (*config, error) {
	cfg := &config{Contexts: map[string]*contextConfig{}}
	data, err := os.ReadFile(filepath.Join(dir, configFile))
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read contexts: %w", err)
	}
	if err := json.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("read contexts: %s is not valid JSON: %v", filepath.Join(dir, configFile), err)
	}
	if cfg.Contexts == nil {
		cfg.Contexts = map[string]*contextConfig{}
	}
	for name, c := range cfg.Contexts {
		if c == nil {
			delete(cfg.Contexts, name)
		}
	}
	if cfg.Contexts[cfg.Current] == nil {
		cfg.Current = ""
	}
	return cfg, nil
}

// save replaces the contexts file atomically (store/atomicfile).
func (cfg *config) save(dir string) error {
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save contexts: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, configFile), append(data, '\n')); err != nil {
		return fmt.Errorf("save contexts: %w", err)
	}
	return nil
}
