//go:build ignore

// doclinks checks every relative link of the project's Markdown (README.md
// and docs/, or the files and folders given): the file it names must
// exist, and an anchor (#...) must name a heading of that file, by
// GitHub's rules: the heading's text lowercased, spaces turned into '-',
// every character but letters, digits, '-' and '_' removed, and "-1",
// "-2", ... added to a heading whose anchor came before. Links in code
// blocks and code spans are not links. It prints one line per broken link
// and exits 1 if there is any.
//
//	go run .ci/doclinks.go            # README.md and docs/
//	go run .ci/doclinks.go FILE|DIR...
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

var (
	// inline links and images: [text](target "title")
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// reference definitions: [label]: target
	refDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	// a code fence: three or more backticks or tildes, then an info
	// string (which, after backticks, may hold no backtick)
	fenceOpen  = regexp.MustCompile("^(`{3,}|~{3,})(.*)$")
	heading    = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

type link struct {
	file   string
	line   int
	target string
}

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		args = []string{"README.md", "docs"}
	}
	var files []string
	for _, a := range args {
		err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != a) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "doclinks:", err)
			os.Exit(2)
		}
	}
	sort.Strings(files)

	anchors := map[string]map[string]bool{} // by cleaned path
	anchorsOf := func(p string) (map[string]bool, error) {
		if a, ok := anchors[p]; ok {
			return a, nil
		}
		a, _, err := scan(p)
		if err != nil {
			return nil, err
		}
		anchors[p] = a
		return a, nil
	}

	broken, checked := 0, 0
	for _, f := range files {
		_, links, err := scan(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "doclinks:", err)
			os.Exit(2)
		}
		for _, l := range links {
			t := l.target
			if t == "" || strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(t, "#")
			target := f
			if path != "" {
				if strings.HasPrefix(path, "/") {
					target = filepath.Clean(strings.TrimPrefix(path, "/"))
				} else {
					target = filepath.Join(filepath.Dir(f), path)
				}
				if _, err := os.Stat(target); err != nil {
					fmt.Printf("%s:%d: %s: no such file %s\n", l.file, l.line, t, target)
					broken++
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				fmt.Printf("%s:%d: %s: an anchor into a file that is not Markdown\n", l.file, l.line, t)
				broken++
				continue
			}
			a, err := anchorsOf(filepath.Clean(target))
			if err != nil {
				fmt.Fprintln(os.Stderr, "doclinks:", err)
				os.Exit(2)
			}
			if !a[strings.ToLower(frag)] {
				fmt.Printf("%s:%d: %s: no heading #%s in %s\n", l.file, l.line, t, frag, target)
				broken++
			}
		}
	}
	fmt.Printf("doclinks: %d files, %d relative links, %d broken\n", len(files), checked, broken)
	if broken > 0 {
		os.Exit(1)
	}
}

// scan reads a Markdown file and returns the anchors of its headings and
// its links, skipping fenced code blocks and code spans.
func scan(path string) (map[string]bool, []link, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	anchors := map[string]bool{}
	seen := map[string]int{}
	var links []link
	var fence string // the open code fence's marker, "" outside one
	var para string  // the paragraph read so far
	var inPara int   // how many links it holds
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			// closed by a run of the same character, at least as long,
			// and nothing else
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(trimmed); m != nil && !(m[1][0] == '`' && strings.Contains(m[2], "`")) {
			fence, para, inPara = m[1], "", 0
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[strings.ToLower(m[1])] = true
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			para, inPara = "", 0
			slug := slugify(m[2])
			if k := seen[slug]; k > 0 {
				anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				anchors[slug] = true
			}
			seen[slug]++
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			links = append(links, link{path, n, m[1]})
			continue
		}
		// A link's text may run over a line break: links are read from
		// the paragraph so far (a blank line, a heading or a fence ends
		// it), and those not seen before are this line's.
		if strings.TrimSpace(line) == "" {
			para, inPara = "", 0
			continue
		}
		para += " " + line
		found := inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(para, ""), -1)
		for _, m := range found[min(inPara, len(found)):] {
			links = append(links, link{path, n, m[1]})
		}
		inPara = max(inPara, len(found))
	}
	return anchors, links, sc.Err()
}

// slugify is GitHub's anchor of a heading's text: its rendered text
// (code spans keep their content, links their text, emphasis marks go),
// lowercased, spaces to '-', and every character that is not a letter, a
// digit, '-' or '_' removed.
func slugify(h string) string {
	h = mdLink.ReplaceAllString(h, "$1")
	h = strings.ReplaceAll(h, "`", "")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
