package main

// Tests of the release files (docs/release.md): server.json against the MCP
// Registry's published schema and manifest.json against the MCP Bundle's,
// both with a real JSON Schema validator, and that both say what hubsnap
// does: its environment variables, its command, its tools. With
// HUBSNAP_DIST naming a folder that .ci/package built, also what is in it:
// the archives, the checksums, the bundle, the npm packages and the final
// server.json with the bundle's sha256.
//
// The schemas are copies kept in testdata/release: the registry's
// 2025-12-11 server.schema.json as the registry embeds it
// (github.com/modelcontextprotocol/registry v1.8.9,
// internal/validators/schemas/2025-12-11.json) and the bundle's v0.3 schema
// as npm @anthropic-ai/mcpb 2.1.2 ships it (schemas/).

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// releaseRoot is the repository's root, where the release files are.
var releaseRoot = filepath.Join("..", "..")

// distEnv names the folder .ci/package built (dist/), for TestReleaseDist.
const distEnv = "HUBSNAP_DIST"

var (
	serverSchemaPath   = filepath.Join(releaseRoot, "testdata", "release", "server.schema.2025-12-11.json")
	manifestSchemaPath = filepath.Join(releaseRoot, "testdata", "release", "mcpb-manifest-v0.3.schema.json")
)

// compileSchema compiles the JSON Schema in file, asserting formats too.
func compileSchema(tb testing.TB, file string) *jsonschema.Schema {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(abs, doc); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	sch, err := c.Compile(abs)
	if err != nil {
		tb.Fatalf("compile %s: %v", file, err)
	}
	return sch
}

// validate checks the JSON document data against sch.
func validate(sch *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// readJSON reads file and decodes it into v, refusing unknown fields so
// that a misspelt field of the files fails here.
func readJSON(tb testing.TB, file string, v any) []byte {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	decodeStrict(tb, file, data, v)
	return data
}

func decodeStrict(tb testing.TB, what string, data []byte, v any) {
	tb.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}

// registryEntry is server.json, as far as these tests read it.
type registryEntry struct {
	Schema      string `json:"$schema"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Repository  struct {
		URL    string `json:"url"`
		Source string `json:"source"`
	} `json:"repository"`
	WebsiteURL string            `json:"websiteUrl"`
	Version    string            `json:"version"`
	Packages   []registryPackage `json:"packages"`
}

type registryPackage struct {
	RegistryType     string                `json:"registryType"`
	RegistryBaseURL  string                `json:"registryBaseUrl"`
	Identifier       string                `json:"identifier"`
	Version          string                `json:"version"`
	FileSha256       string                `json:"fileSha256"`
	RuntimeHint      string                `json:"runtimeHint"`
	Transport        struct{ Type string } `json:"transport"`
	PackageArguments []struct {
		Type        string `json:"type"`
		Name        string `json:"name"`
		Value       string `json:"value"`
		Description string `json:"description"`
		ValueHint   string `json:"valueHint"`
		IsRequired  bool   `json:"isRequired"`
	} `json:"packageArguments"`
	EnvironmentVariables []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		IsRequired  bool   `json:"isRequired"`
		IsSecret    bool   `json:"isSecret"`
	} `json:"environmentVariables"`
}

// pkg returns the package of registryType.
func (e registryEntry) pkg(tb testing.TB, registryType string) registryPackage {
	tb.Helper()
	for _, p := range e.Packages {
		if p.RegistryType == registryType {
			return p
		}
	}
	tb.Fatalf("server.json names no %s package", registryType)
	return registryPackage{}
}

// bundleManifest is the MCP Bundle's manifest.json, as far as these tests
// read it.
type bundleManifest struct {
	ManifestVersion string            `json:"manifest_version"`
	Name            string            `json:"name"`
	DisplayName     string            `json:"display_name"`
	Version         string            `json:"version"`
	Description     string            `json:"description"`
	LongDescription string            `json:"long_description"`
	Author          map[string]string `json:"author"`
	Repository      map[string]string `json:"repository"`
	Homepage        string            `json:"homepage"`
	Documentation   string            `json:"documentation"`
	Support         string            `json:"support"`
	License         string            `json:"license"`
	Keywords        []string          `json:"keywords"`
	Server          struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command           string            `json:"command"`
			Args              []string          `json:"args"`
			Env               map[string]string `json:"env"`
			PlatformOverrides map[string]struct {
				Command string `json:"command"`
			} `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
	Tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tools"`
	ToolsGenerated bool `json:"tools_generated"`
	Compatibility  struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Type        string `json:"type"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
		Sensitive   bool   `json:"sensitive"`
		Default     any    `json:"default"`
	} `json:"user_config"`
}

// bundleBinaries are the bundle's binaries by the platform names of the
// manifest (Node's process.platform): what .ci/package puts there.
var bundleBinaries = map[string]string{
	"darwin": "server/darwin/hubsnap", // universal: amd64 and arm64
	"linux":  "server/linux/hubsnap",  // amd64
	"win32":  "server/win32/hubsnap.exe",
}

// settingsEnv are the environment variables of the settings that an MCP
// client may set, with whether each is a secret.
var settingsEnv = map[string]bool{envHub: false, envProject: false, envEnvironment: false, envToken: true}

// TestServerJSONValid checks the registry entry template against the
// registry's schema, and that the validator does reject what the schema
// forbids.
func TestServerJSONValid(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t, serverSchemaPath)
	file := filepath.Join(releaseRoot, "server.json")
	var e registryEntry
	data := readJSON(t, file, &e)
	if err := validate(sch, data); err != nil {
		t.Fatalf("server.json is not valid against the registry's schema: %v", err)
	}
	checkRegistryEntry(t, e)

	// The template holds placeholders that .ci/package replaces in
	// dist/server.json: a version and the bundle's sha256 exist only once
	// a release is built.
	mcpb := e.pkg(t, "mcpb")
	if e.Version != "0.0.0" || e.pkg(t, "npm").Version != "0.0.0" || mcpb.Version != "0.0.0" ||
		mcpb.FileSha256 != strings.Repeat("0", 64) || !strings.Contains(mcpb.Identifier, "/v0.0.0/") {
		t.Errorf("server.json: the template's version and sha256 must be the placeholders 0.0.0 and 64 zeros "+
			"(.ci/package writes the real ones into dist/server.json); got %+v", e)
	}

	// The validator is a real one: each of these breaks the schema.
	for name, change := range map[string]func(map[string]any){
		"no name":                  func(d map[string]any) { delete(d, "name") },
		"a name without a slash":   func(d map[string]any) { d["name"] = "hubsnap" },
		"a long description":       func(d map[string]any) { d["description"] = strings.Repeat("x", 101) },
		"a sha256 in capitals":     func(d map[string]any) { pkgs(d)[1]["fileSha256"] = strings.Repeat("A", 64) },
		"the version latest":       func(d map[string]any) { pkgs(d)[0]["version"] = "latest" },
		"no transport":             func(d map[string]any) { delete(pkgs(d)[0], "transport") },
		"a website that is no URI": func(d map[string]any) { d["websiteUrl"] = "not a uri" },
	} {
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		change(d)
		bad, _ := json.Marshal(d)
		if err := validate(sch, bad); err == nil {
			t.Errorf("server.json with %s passes the schema", name)
		}
	}
}

func pkgs(d map[string]any) []map[string]any {
	var out []map[string]any
	for _, p := range d["packages"].([]any) {
		out = append(out, p.(map[string]any))
	}
	return out
}

// checkRegistryEntry checks what a registry entry must say about hubsnap,
// template or built.
func checkRegistryEntry(tb testing.TB, e registryEntry) {
	tb.Helper()
	sch := map[string]any{}
	readJSON(tb, serverSchemaPath, &sch)
	if e.Schema != sch["$id"] {
		tb.Errorf("server.json $schema = %q, want the kept schema's $id %q", e.Schema, sch["$id"])
	}
	if e.Name != "io.github.hubsnap/hubsnap" {
		tb.Errorf("server.json name = %q", e.Name)
	}
	if len(e.Packages) != 2 {
		tb.Fatalf("server.json has %d packages, want npm and mcpb", len(e.Packages))
	}
	npm := e.pkg(tb, "npm")
	if npm.Identifier != "hubsnap" || npm.RuntimeHint != "npx" || npm.Transport.Type != "stdio" || npm.RegistryBaseURL != "" {
		tb.Errorf("server.json npm package = %+v, want hubsnap through npx over stdio", npm)
	}
	if len(npm.PackageArguments) == 0 || npm.PackageArguments[0].Type != "positional" || npm.PackageArguments[0].Value != "serve" {
		tb.Errorf("server.json npm package arguments = %+v, want serve first", npm.PackageArguments)
	}
	for _, a := range npm.PackageArguments[1:] {
		if a.Type == "named" && a.Name != "--sync-every" {
			tb.Errorf("server.json names the flag %s, which serve does not take here", a.Name)
		}
	}
	got := map[string]bool{}
	for _, v := range npm.EnvironmentVariables {
		got[v.Name] = v.IsSecret
		if v.IsRequired || v.Description == "" {
			tb.Errorf("server.json: %s must be optional (a context may give it) and described", v.Name)
		}
	}
	if diff := cmp.Diff(settingsEnv, got); diff != "" {
		tb.Errorf("server.json environment variables (name: secret), -want +got:\n%s", diff)
	}
	mcpb := e.pkg(tb, "mcpb")
	wantURL := "https://github.com/hubsnap/hubsnap/releases/download/v" + e.Version + "/hubsnap.mcpb"
	if mcpb.Identifier != wantURL || mcpb.Transport.Type != "stdio" {
		tb.Errorf("server.json mcpb package = %+v, want %s over stdio", mcpb, wantURL)
	}
	if npm.Version != e.Version || mcpb.Version != e.Version {
		tb.Errorf("server.json versions: %q, npm %q, mcpb %q: want one version", e.Version, npm.Version, mcpb.Version)
	}
}

// placeholderRE matches the manifest's ${user_config.NAME}.
var placeholderRE = regexp.MustCompile(`^\$\{user_config\.([a-z_]+)\}$`)

// TestBundleManifestValid checks manifest.json against the bundle format's
// schema and against what hubsnap reads.
func TestBundleManifestValid(t *testing.T) {
	t.Parallel()
	var m bundleManifest
	data := readJSON(t, filepath.Join(releaseRoot, "manifest.json"), &m)
	if err := validate(compileSchema(t, manifestSchemaPath), data); err != nil {
		t.Fatalf("manifest.json is not valid against the MCP Bundle schema v0.3: %v", err)
	}
	if m.Version != "0.0.0" {
		t.Errorf("manifest.json version = %q, want the placeholder 0.0.0 (.ci/package writes the release's)", m.Version)
	}
	checkBundleManifest(t, m)
}

func checkBundleManifest(tb testing.TB, m bundleManifest) {
	tb.Helper()
	// 0.3 is the current version of the format (MANIFEST.md); 0.4 only
	// adds the experimental uv server type.
	if m.ManifestVersion != "0.3" || m.Name != "hubsnap" || m.Server.Type != "binary" || m.License != "MIT" {
		tb.Errorf("manifest.json: manifest_version %q, name %q, server.type %q, license %q; want 0.3, hubsnap, binary, MIT",
			m.ManifestVersion, m.Name, m.Server.Type, m.License)
	}

	// The command of each platform is its binary, run as hubsnap serve.
	mc := m.Server.MCPConfig
	commands := map[string]string{"darwin": mc.Command}
	for p, o := range mc.PlatformOverrides {
		commands[p] = o.Command
	}
	want := map[string]string{}
	for p, bin := range bundleBinaries {
		want[p] = "${__dirname}/" + bin
	}
	if diff := cmp.Diff(want, commands); diff != "" {
		tb.Errorf("manifest.json commands by platform, -want +got:\n%s", diff)
	}
	if !slices.Contains(slices.Collect(maps.Values(bundleBinaries)), m.Server.EntryPoint) {
		tb.Errorf("manifest.json entry_point = %q, want one of the binaries", m.Server.EntryPoint)
	}
	if got, want := m.Compatibility.Platforms, slices.Sorted(maps.Keys(bundleBinaries)); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		tb.Errorf("manifest.json platforms = %q, want %q", got, want)
	}
	if len(mc.Args) != 3 || mc.Args[0] != "serve" || mc.Args[1] != "--sync-every" || mc.Args[2] != "${user_config.sync_every}" {
		tb.Errorf("manifest.json args = %q, want serve --sync-every ${user_config.sync_every}", mc.Args)
	}

	// Each setting is one user_config, mapped to its variable; none has a
	// default, so that an empty one leaves the context's value (a token
	// is sensitive).
	used := map[string]bool{"sync_every": true}
	envs := map[string]bool{}
	for name, v := range mc.Env {
		secret, ok := settingsEnv[name]
		if !ok {
			tb.Errorf("manifest.json sets %s, which is no setting of hubsnap", name)
			continue
		}
		envs[name] = true
		sub := placeholderRE.FindStringSubmatch(v)
		if sub == nil {
			tb.Errorf("manifest.json %s = %q, want ${user_config.NAME}", name, v)
			continue
		}
		used[sub[1]] = true
		uc, ok := m.UserConfig[sub[1]]
		switch {
		case !ok:
			tb.Errorf("manifest.json %s names user_config.%s, which does not exist", name, sub[1])
		case uc.Type != "string" || uc.Required || uc.Default != nil || uc.Sensitive != secret:
			tb.Errorf("manifest.json user_config.%s = %+v: want an optional string without a default, sensitive: %v", sub[1], uc, secret)
		}
	}
	if len(envs) != len(settingsEnv) {
		tb.Errorf("manifest.json env sets %v, want all of %v", slices.Sorted(maps.Keys(envs)), slices.Sorted(maps.Keys(settingsEnv)))
	}
	for name := range m.UserConfig {
		if !used[name] {
			tb.Errorf("manifest.json user_config.%s is used by nothing", name)
		}
	}
	sync := m.UserConfig["sync_every"]
	def, _ := sync.Default.(string)
	if d, err := time.ParseDuration(def); err != nil || d < minSyncEvery || sync.Required {
		tb.Errorf("manifest.json user_config.sync_every = %+v, want an optional duration of at least %v", sync, minSyncEvery)
	}
	if len(m.Tools) == 0 {
		tb.Errorf("manifest.json lists no tools")
	}
	for _, tool := range m.Tools {
		if tool.Description == "" {
			tb.Errorf("manifest.json tool %s has no description", tool.Name)
		}
	}
}

// TestBundleToolsAreServed checks that manifest.json lists the tools that
// hubsnap serve offers, no more and no fewer.
func TestBundleToolsAreServed(t *testing.T) {
	t.Parallel()
	var m bundleManifest
	readJSON(t, filepath.Join(releaseRoot, "manifest.json"), &m)
	var want []string
	for _, tool := range m.Tools {
		want = append(want, tool.Name)
	}
	c := newCLI(t)
	c.with("HUBSNAP_PROJECT", "shop").ok("snapshot", "import", shopPath)
	got := servedTools(t, hubsnapCmd(t, c.with("HUBSNAP_PROJECT", "shop"), "serve"))
	if !slices.Equal(slices.Sorted(slices.Values(want)), got) {
		t.Errorf("manifest.json tools = %q, hubsnap serve offers %q", want, got)
	}
}

// servedTools connects to the MCP server that cmd runs over stdio and
// returns the names of its tools, sorted.
func servedTools(tb testing.TB, cmd *exec.Cmd) []string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sessionLimit)
	defer cancel()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	session, err := mcp.NewClient(&mcp.Implementation{Name: "release-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: signalLimit}, nil)
	if err != nil {
		tb.Fatalf("connect to %q: %v; stderr: %s", cmd.Args, err, stderr)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		tb.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// distMetadata is dist/metadata.json, which GoReleaser writes.
type distMetadata struct {
	ProjectName string `json:"project_name"`
	Tag         string `json:"tag"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
}

// distArtifact is one entry of dist/artifacts.json.
type distArtifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
	Type   string `json:"type"`
}

// dist is what .ci/package built, for the tests that check it.
type dist struct {
	dir       string
	meta      distMetadata
	artifacts []distArtifact
	date      time.Time // the commit's
}

// openDist returns the folder named by HUBSNAP_DIST, or skips the test.
func openDist(tb testing.TB) *dist {
	tb.Helper()
	dir := os.Getenv(distEnv)
	if dir == "" {
		tb.Skipf("%s is not set: .ci/package sets it to check what it built", distEnv)
	}
	d := &dist{dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, &d.meta); err != nil {
		tb.Fatal(err)
	}
	data, err = os.ReadFile(filepath.Join(dir, "artifacts.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, &d.artifacts); err != nil {
		tb.Fatal(err)
	}
	if d.meta.Version == "" || len(d.meta.Commit) != 40 {
		tb.Fatalf("dist/metadata.json = %+v: want a version and a full commit", d.meta)
	}
	out, err := exec.Command("git", "-C", releaseRoot, "show", "-s", "--format=%ct", d.meta.Commit).Output()
	if err != nil {
		tb.Fatalf("the date of commit %s: %v", d.meta.Commit, err)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	d.date = time.Unix(sec, 0).UTC()
	return d
}

func (d *dist) path(name string) string { return filepath.Join(d.dir, name) }

// platform is one GOOS/GOARCH of the release, with its npm names.
type platform struct{ goos, goarch, npmOS, npmCPU string }

var releasePlatforms = []platform{
	{"linux", "amd64", "linux", "x64"}, {"linux", "arm64", "linux", "arm64"},
	{"darwin", "amd64", "darwin", "x64"}, {"darwin", "arm64", "darwin", "arm64"},
	{"windows", "amd64", "win32", "x64"}, {"windows", "arm64", "win32", "arm64"},
}

func (p platform) exe() string {
	if p.goos == "windows" {
		return "hubsnap.exe"
	}
	return "hubsnap"
}

// checkBinary fails unless bin is a hubsnap executable for goos/goarch
// (goarch "all": a macOS universal binary of amd64 and arm64) stamped with
// version.
func checkBinary(tb testing.TB, what string, bin []byte, goos, goarch, version string) {
	tb.Helper()
	r := bytes.NewReader(bin)
	var got string
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			tb.Errorf("%s: not ELF: %v", what, err)
			return
		}
		got = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
		// CGO_ENABLED=0: a static binary, no interpreter.
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				tb.Errorf("%s: dynamically linked (has an interpreter)", what)
			}
		}
	case "darwin":
		if goarch == "all" {
			f, err := macho.NewFatFile(r)
			if err != nil {
				tb.Errorf("%s: not a universal Mach-O: %v", what, err)
				return
			}
			var cpus []string
			for _, a := range f.Arches {
				cpus = append(cpus, map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[a.Cpu])
			}
			slices.Sort(cpus)
			got = strings.Join(cpus, "+")
			goarch = "amd64+arm64"
			break
		}
		f, err := macho.NewFile(r)
		if err != nil {
			tb.Errorf("%s: not Mach-O: %v", what, err)
			return
		}
		got = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			tb.Errorf("%s: not PE: %v", what, err)
			return
		}
		got = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	if got != goarch {
		tb.Errorf("%s: built for %s/%q, want %s/%s", what, goos, got, goos, goarch)
	}
	if !bytes.Contains(bin, []byte("v"+version)) {
		tb.Errorf("%s: the version v%s is not stamped in", what, version)
	}
}

// archiveFile is one file of an archive.
type archiveFile struct {
	mode fs.FileMode
	time time.Time
	data []byte
}

// readArchive returns the files of a .tar.gz, .tgz, .zip or .mcpb file.
func readArchive(tb testing.TB, file string) map[string]archiveFile {
	tb.Helper()
	out := map[string]archiveFile{}
	if strings.HasSuffix(file, ".zip") || strings.HasSuffix(file, ".mcpb") {
		z, err := zip.OpenReader(file)
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		defer z.Close()
		for _, f := range z.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				tb.Fatalf("%s: %s: %v", file, f.Name, err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				tb.Fatalf("%s: %s: %v", file, f.Name, err)
			}
			out[f.Name] = archiveFile{f.Mode(), f.Modified, data}
		}
		return out
	}
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			tb.Fatalf("%s: %s: %v", file, h.Name, err)
		}
		out[h.Name] = archiveFile{h.FileInfo().Mode(), h.ModTime, data}
	}
	return out
}

func sha256File(tb testing.TB, file string) string {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestReleaseDist checks what .ci/package built in HUBSNAP_DIST.
func TestReleaseDist(t *testing.T) {
	d := openDist(t)
	v := d.meta.Version
	repoFile := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(releaseRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	t.Run("archives", func(t *testing.T) {
		var archives []string
		for _, a := range d.artifacts {
			if a.Type == "Archive" {
				archives = append(archives, a.Name)
			}
		}
		var want []string
		for _, p := range releasePlatforms {
			ext := ".tar.gz"
			if p.goos == "windows" {
				ext = ".zip"
			}
			name := fmt.Sprintf("hubsnap_%s_%s_%s%s", v, p.goos, p.goarch, ext)
			want = append(want, name)
			files := readArchive(t, d.path(name))
			if got, wantFiles := slices.Sorted(maps.Keys(files)), []string{"LICENSE", "README.md", p.exe()}; !slices.Equal(got, wantFiles) {
				t.Errorf("%s holds %q, want %q", name, got, wantFiles)
				continue
			}
			checkBinary(t, name, files[p.exe()].data, p.goos, p.goarch, v)
			if !bytes.Equal(files["LICENSE"].data, repoFile("LICENSE")) || !bytes.Equal(files["README.md"].data, repoFile("README.md")) {
				t.Errorf("%s: LICENSE or README.md differ from the repository's", name)
			}
			if p.goos != "windows" && files[p.exe()].mode&0o111 == 0 {
				t.Errorf("%s: %s is not executable: %v", name, p.exe(), files[p.exe()].mode)
			}
			// Reproducible: every file has the commit's time.
			for fname, f := range files {
				if !f.time.Equal(d.date) {
					t.Errorf("%s: %s has the time %v, want the commit's %v", name, fname, f.time.UTC(), d.date)
				}
			}
		}
		slices.Sort(archives)
		slices.Sort(want)
		if !slices.Equal(archives, want) {
			t.Errorf("archives %q, want %q", archives, want)
		}
	})

	t.Run("checksums", func(t *testing.T) {
		file := d.path("hubsnap_" + v + "_checksums.txt")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for line := range strings.Lines(string(data)) {
			sum, name, ok := strings.Cut(strings.TrimSpace(line), "  ")
			if !ok {
				t.Errorf("%s: line %q", file, line)
				continue
			}
			names = append(names, name)
			if got := sha256File(t, d.path(name)); got != sum {
				t.Errorf("%s: %s has sha256 %s, the file %s", file, name, sum, got)
			}
		}
		want := []string{"hubsnap.mcpb"}
		for _, p := range releasePlatforms {
			ext := ".tar.gz"
			if p.goos == "windows" {
				ext = ".zip"
			}
			want = append(want, fmt.Sprintf("hubsnap_%s_%s_%s%s", v, p.goos, p.goarch, ext))
		}
		slices.Sort(want)
		if !slices.Equal(slices.Sorted(slices.Values(names)), want) {
			t.Errorf("%s lists %q, want %q", file, names, want)
		}
	})

	t.Run("bundle", func(t *testing.T) {
		files := readArchive(t, d.path("hubsnap.mcpb"))
		var m bundleManifest
		decodeStrict(t, "the bundle's manifest.json", files["manifest.json"].data, &m)
		if err := validate(compileSchema(t, manifestSchemaPath), files["manifest.json"].data); err != nil {
			t.Errorf("the bundle's manifest.json: %v", err)
		}
		var tmpl bundleManifest
		readJSON(t, filepath.Join(releaseRoot, "manifest.json"), &tmpl)
		tmpl.Version = v
		if diff := cmp.Diff(tmpl, m); diff != "" {
			t.Errorf("the bundle's manifest.json is not manifest.json with version %s, -want +got:\n%s", v, diff)
		}
		checkBundleManifest(t, m)
		want := []string{"LICENSE", "README.md", "manifest.json"}
		for _, bin := range bundleBinaries {
			want = append(want, bin)
		}
		slices.Sort(want)
		if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, want) {
			t.Errorf("hubsnap.mcpb holds %q, want %q", got, want)
		}
		checkBinary(t, "the bundle's darwin binary", files[bundleBinaries["darwin"]].data, "darwin", "all", v)
		checkBinary(t, "the bundle's linux binary", files[bundleBinaries["linux"]].data, "linux", "amd64", v)
		checkBinary(t, "the bundle's win32 binary", files[bundleBinaries["win32"]].data, "windows", "amd64", v)
		for _, p := range []string{"darwin", "linux"} {
			if f := files[bundleBinaries[p]]; f.mode&0o111 == 0 {
				t.Errorf("hubsnap.mcpb: %s is not executable: %v", bundleBinaries[p], f.mode)
			}
		}
	})

	t.Run("server.json", func(t *testing.T) {
		var e registryEntry
		data := readJSON(t, d.path("server.json"), &e)
		if err := validate(compileSchema(t, serverSchemaPath), data); err != nil {
			t.Fatalf("dist/server.json is not valid against the registry's schema: %v", err)
		}
		checkRegistryEntry(t, e)
		if e.Version != v {
			t.Errorf("dist/server.json version = %q, want %q", e.Version, v)
		}
		if got, want := e.pkg(t, "mcpb").FileSha256, sha256File(t, d.path("hubsnap.mcpb")); got != want {
			t.Errorf("dist/server.json: the bundle's sha256 = %s, the file's %s", got, want)
		}
		// Nothing else differs from the template.
		var tmpl registryEntry
		readJSON(t, filepath.Join(releaseRoot, "server.json"), &tmpl)
		tmpl.Version = v
		for i := range tmpl.Packages {
			tmpl.Packages[i].Version = v
			if tmpl.Packages[i].RegistryType == "mcpb" {
				tmpl.Packages[i].Identifier = strings.Replace(tmpl.Packages[i].Identifier, "/v0.0.0/", "/v"+v+"/", 1)
				tmpl.Packages[i].FileSha256 = e.pkg(t, "mcpb").FileSha256
			}
		}
		if diff := cmp.Diff(tmpl, e); diff != "" {
			t.Errorf("dist/server.json differs from server.json by more than the version and sha256, -want +got:\n%s", diff)
		}
	})

	t.Run("npm", func(t *testing.T) {
		var reg registryEntry
		readJSON(t, filepath.Join(releaseRoot, "server.json"), &reg)
		type pkgJSON struct {
			Name                 string            `json:"name"`
			Version              string            `json:"version"`
			MCPName              string            `json:"mcpName"`
			License              string            `json:"license"`
			Bin                  map[string]string `json:"bin"`
			OS                   []string          `json:"os"`
			CPU                  []string          `json:"cpu"`
			OptionalDependencies map[string]string `json:"optionalDependencies"`
			Dependencies         map[string]string `json:"dependencies"`
			Scripts              map[string]string `json:"scripts"`
		}
		read := func(file string) (pkgJSON, map[string]archiveFile) {
			files := readArchive(t, file)
			var p pkgJSON
			if err := json.Unmarshal(files["package/package.json"].data, &p); err != nil {
				t.Fatalf("%s: package.json: %v", file, err)
			}
			if len(p.Scripts) != 0 || len(p.Dependencies) != 0 {
				t.Errorf("%s: scripts %v, dependencies %v: want none (nothing runs or downloads at install)", file, p.Scripts, p.Dependencies)
			}
			if p.Version != v || p.License != "MIT" || files["package/LICENSE"].data == nil {
				t.Errorf("%s: version %q, license %q: want %s, MIT and a LICENSE", file, p.Version, p.License, v)
			}
			return p, files
		}
		launcher, files := read(d.path(filepath.Join("npm", "hubsnap-"+v+".tgz")))
		if launcher.Name != "hubsnap" || launcher.MCPName != reg.Name || launcher.Bin["hubsnap"] != "bin/hubsnap.js" {
			t.Errorf("the launcher's package.json = %+v, want hubsnap, mcpName %s, bin/hubsnap.js", launcher, reg.Name)
		}
		src, err := os.ReadFile(filepath.Join(releaseRoot, ".ci", "npm", "hubsnap.js"))
		if err != nil {
			t.Fatal(err)
		}
		if f := files["package/bin/hubsnap.js"]; !bytes.Equal(f.data, src) || f.mode&0o111 == 0 {
			t.Errorf("the launcher's bin/hubsnap.js is not .ci/npm/hubsnap.js, executable (mode %v)", f.mode)
		}
		want := map[string]string{}
		for _, p := range releasePlatforms {
			name := "@hubsnap/" + p.npmOS + "-" + p.npmCPU
			want[name] = v
			pj, files := read(d.path(filepath.Join("npm", "hubsnap-"+p.npmOS+"-"+p.npmCPU+"-"+v+".tgz")))
			if pj.Name != name || !slices.Equal(pj.OS, []string{p.npmOS}) || !slices.Equal(pj.CPU, []string{p.npmCPU}) || len(pj.Bin) != 0 {
				t.Errorf("%s's package.json = %+v, want os %s, cpu %s, no bin", name, pj, p.npmOS, p.npmCPU)
			}
			bin := files["package/bin/"+p.exe()]
			checkBinary(t, name, bin.data, p.goos, p.goarch, v)
			if p.goos != "windows" && bin.mode&0o111 == 0 {
				t.Errorf("%s: bin/%s is not executable: %v", name, p.exe(), bin.mode)
			}
		}
		if diff := cmp.Diff(want, launcher.OptionalDependencies); diff != "" {
			t.Errorf("the launcher's optionalDependencies, -want +got:\n%s", diff)
		}
	})
}
