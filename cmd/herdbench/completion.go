package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

const completionHelp = `Usage: herdbench completion bash|zsh|fish

Prints a script that completes herdbench's commands, flags, built-in
scenario names, scenario files and results folders in that shell. The
flags are the commands' own, read from them, so the script is always this
version's.

  bash:  source <(herdbench completion bash)
         (or save it as /etc/bash_completion.d/herdbench)
  zsh:   herdbench completion zsh > "${fpath[1]}/_herdbench"   (then compinit)
  fish:  herdbench completion fish > ~/.config/fish/completions/herdbench.fish
`

// command is one of herdbench's commands, for the usage and completion.
type command struct {
	name, summary string
	args          string // what its arguments are: "scenario", "dir", "shell", "command" or ""
}

var commands = []command{
	{"scenario", "run a scenario and compare its strategies", "scenario"},
	{"cliff", "find where each strategy stops recovering, in virtual time", "scenario"},
	{"report", "re-render a results folder's report, or overlay several", "dir"},
	{"validate", "check scenario files without running them", "scenario"},
	{"list", "list the built-in scenarios", ""},
	{"target", "run the fault-injecting target on its own", ""},
	{"proxy", "put a chaos proxy in front of a real service", ""},
	{"merge", "combine the results of a run's shards", "dir"},
	{"k8s", "print a Kubernetes Job that runs a scenario's shards", "scenario"},
	{"completion", "print a shell completion script", "shell"},
	{"version", "print the version", ""},
	{"help", "show the help of herdbench or of a command", "command"},
}

// flagCapture is a stdout that asks a command for its flags: parseFlags
// hands it the command's FlagSet, and the command returns at once, having
// done nothing.
type flagCapture struct {
	io.Writer
	fs *pflag.FlagSet
}

// flagsOf returns a command's flags, as the command itself defines them;
// nil for a command without.
func flagsOf(name string) *pflag.FlagSet {
	c := &flagCapture{Writer: io.Discard}
	switch name {
	case "version", "help", "completion":
		return nil
	}
	run(context.Background(), []string{name}, c, io.Discard)
	return c.fs
}

func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Fprint(stdout, completionHelp)
		return exitOK
	}
	if len(args) != 1 {
		fmt.Fprintf(stderr, "herdbench completion: name one shell: bash, zsh or fish\n\n%s", completionHelp)
		return exitUsage
	}
	var script string
	switch args[0] {
	case "bash":
		script = bashCompletion()
	case "zsh":
		script = zshCompletion()
	case "fish":
		script = fishCompletion()
	default:
		fmt.Fprintf(stderr, "herdbench completion: %q is not a shell herdbench completes; name bash, zsh or fish\n", args[0])
		return exitUsage
	}
	if _, err := io.WriteString(stdout, script); err != nil {
		fmt.Fprintln(stderr, "herdbench completion:", err)
		return exitFailed
	}
	return exitOK
}

// flagChoices are the values of the flags that take one of a few words,
// offered as the flag's value (TestCompletionChoicesAreAccepted runs each).
var flagChoices = map[string][]string{
	"cohorts":   {"auto", "together", "apart"},
	"cohort-by": {"all", "user-agent", "source-ip", "header:"},
}

// flagValue says what a flag's value is, for the shells: "" for a flag
// without one (a bool), "dir", "file", "choices" (flagChoices) or "any".
func flagValue(f *pflag.Flag) string {
	switch {
	case f.Value.Type() == "bool":
		return ""
	case flagChoices[f.Name] != nil:
		return "choices"
	case f.Name == "out":
		return "dir"
	case f.Name == "junit" || strings.HasSuffix(f.Name, "-file") || f.Name == "scenario":
		return "file"
	}
	return "any"
}

// flagList returns a command's flags in their order of definition.
func flagList(fs *pflag.FlagSet) []*pflag.Flag {
	if fs == nil {
		return nil
	}
	out := []*pflag.Flag{{Name: "help", Shorthand: "h", Usage: "show the command's help", Value: helpValue{}}}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f)
		}
	})
	return out
}

// summary is a flag's usage cut to its first clause, for the shells that
// show one beside each flag.
func summary(usage string) string {
	if i := strings.IndexAny(usage, ";(:"); i > 0 {
		usage = usage[:i]
	}
	usage = strings.TrimSpace(usage)
	if len(usage) > 70 {
		usage = strings.TrimSpace(usage[:strings.LastIndex(usage[:70], " ")]) + "..."
	}
	return usage
}

// helpValue is the type of --help, which pflag adds as it parses.
type helpValue struct{}

func (helpValue) String() string   { return "false" }
func (helpValue) Set(string) error { return nil }
func (helpValue) Type() string     { return "bool" }

func builtinNames() []string {
	bs, _ := scenarios.Builtins()
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.Name
	}
	return names
}

func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

func bashCompletion() string {
	var b strings.Builder
	fmt.Fprintf(&b, `# bash completion for herdbench (herdbench completion bash): source it, or
# save it as /etc/bash_completion.d/herdbench
_herdbench() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W %q -- "$cur"))
        return
    fi
    case ${COMP_WORDS[1]} in
`, strings.Join(commandNames(), " "))
	for _, c := range commands {
		names := c.name
		if c.name == "scenario" {
			names += "|run"
		}
		fmt.Fprintf(&b, "    %s)\n", names)
		flags := flagList(flagsOf(c.name))
		var words, dirs, files, values, choices []string
		for _, f := range flags {
			spell := []string{"--" + f.Name}
			if f.Shorthand != "" {
				spell = append(spell, "-"+f.Shorthand)
			}
			words = append(words, spell...)
			switch flagValue(f) {
			case "dir":
				dirs = append(dirs, spell...)
			case "file":
				files = append(files, spell...)
			case "any":
				values = append(values, spell...)
			case "choices":
				choices = append(choices, fmt.Sprintf("            %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(spell, "|"), strings.Join(flagChoices[f.Name], " ")))
			}
		}
		if len(dirs)+len(files)+len(values)+len(choices) > 0 {
			b.WriteString("        case $prev in\n")
			for _, c := range choices {
				b.WriteString(c)
			}
			if len(dirs) > 0 {
				fmt.Fprintf(&b, "            %s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", strings.Join(dirs, "|"))
			}
			if len(files) > 0 {
				fmt.Fprintf(&b, "            %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(files, "|"))
			}
			if len(values) > 0 {
				fmt.Fprintf(&b, "            %s) return ;;\n", strings.Join(values, "|"))
			}
			b.WriteString("        esac\n")
		}
		if len(words) > 0 {
			fmt.Fprintf(&b, "        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); return; fi\n", strings.Join(words, " "))
		}
		switch c.args {
		case "scenario":
			fmt.Fprintf(&b, "        COMPREPLY=($(compgen -W %q -- \"$cur\") $(compgen -f -X '!*.y*ml' -- \"$cur\") $(compgen -d -S / -- \"$cur\"))\n", strings.Join(builtinNames(), " "))
		case "dir":
			b.WriteString("        COMPREPLY=($(compgen -d -- \"$cur\"))\n")
		case "shell":
			b.WriteString("        [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n")
		case "command":
			fmt.Fprintf(&b, "        [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", strings.Join(commandNames(), " "))
		}
		b.WriteString("        ;;\n")
	}
	b.WriteString("    esac\n}\ncomplete -F _herdbench herdbench\n")
	return b.String()
}

// zshQuote makes s safe inside a single-quoted _arguments spec:
// brackets and colons end a spec's parts there, so they go.
func zshQuote(s string) string {
	s = strings.NewReplacer("[", "(", "]", ")", ":", " -", "'", "'\\''", "\\", "").Replace(s)
	return s
}

func zshCompletion() string {
	var b strings.Builder
	b.WriteString(`#compdef herdbench
# zsh completion for herdbench (herdbench completion zsh): save it as _herdbench
# in a folder of $fpath, then run compinit.
_herdbench() {
    local -a commands
    commands=(
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "        '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString(`    )
    if (( CURRENT == 2 )); then
        _describe 'command' commands
        return
    fi
    local cmd=$words[2]
    shift words
    (( CURRENT-- ))
    case $cmd in
`)
	for _, c := range commands {
		names := c.name
		if c.name == "scenario" {
			names += "|run"
		}
		fmt.Fprintf(&b, "    %s)\n        _arguments -s \\\n", names)
		for _, f := range flagList(flagsOf(c.name)) {
			desc := zshQuote(summary(f.Usage))
			action := ""
			switch flagValue(f) {
			case "dir":
				action = ":folder:_files -/"
			case "file":
				action = ":file:_files"
			case "any":
				action = ":" + zshQuote(f.Name) + ": "
			case "choices":
				action = ":" + zshQuote(f.Name) + ":(" + zshQuote(strings.Join(flagChoices[f.Name], " ")) + ")"
			}
			if strings.HasSuffix(f.Value.Type(), "Slice") || strings.HasSuffix(f.Value.Type(), "Array") {
				fmt.Fprintf(&b, "            '*--%s[%s]%s' \\\n", f.Name, desc, action)
			} else if f.Shorthand != "" {
				fmt.Fprintf(&b, "            '(-%s --%s)'{-%s,--%s}'[%s]%s' \\\n", f.Shorthand, f.Name, f.Shorthand, f.Name, desc, action)
			} else {
				fmt.Fprintf(&b, "            '--%s[%s]%s' \\\n", f.Name, desc, action)
			}
		}
		switch c.args {
		case "scenario":
			fmt.Fprintf(&b, "            '*:scenario:(%s)' '*:scenario file:_files -g \"*.y(a|)ml\"'\n", strings.Join(builtinNames(), " "))
		case "dir":
			b.WriteString("            '*:results folder:_files -/'\n")
		case "shell":
			b.WriteString("            '1:shell:(bash zsh fish)'\n")
		case "command":
			fmt.Fprintf(&b, "            '1:command:(%s)'\n", strings.Join(commandNames(), " "))
		default:
			b.WriteString("            \n")
		}
		b.WriteString("        ;;\n")
	}
	b.WriteString("    esac\n}\n\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n    _herdbench \"$@\"\nelse\n    compdef _herdbench herdbench\nfi\n")
	return b.String()
}

// fishQuote makes s one single-quoted fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for herdbench (herdbench completion fish): save it as\n# ~/.config/fish/completions/herdbench.fish\ncomplete -c herdbench -f\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "complete -c herdbench -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range commands {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name + map[bool]string{true: " run"}[c.name == "scenario"])
		for _, f := range flagList(flagsOf(c.name)) {
			fmt.Fprintf(&b, "complete -c herdbench -n %s -l %s", cond, f.Name)
			if f.Shorthand != "" {
				fmt.Fprintf(&b, " -s %s", f.Shorthand)
			}
			switch flagValue(f) {
			case "dir":
				b.WriteString(" -r -a '(__fish_complete_directories)'")
			case "file":
				b.WriteString(" -r -F")
			case "any":
				b.WriteString(" -r")
			case "choices":
				fmt.Fprintf(&b, " -r -a %s", fishQuote(strings.Join(flagChoices[f.Name], " ")))
			}
			fmt.Fprintf(&b, " -d %s\n", fishQuote(summary(f.Usage)))
		}
		switch c.args {
		case "scenario":
			fmt.Fprintf(&b, "complete -c herdbench -n %s -a %s -d 'built-in scenario'\n", cond, fishQuote(strings.Join(builtinNames(), " ")))
			fmt.Fprintf(&b, "complete -c herdbench -n %s -a '(__fish_complete_suffix .yaml)'\n", cond)
		case "dir":
			fmt.Fprintf(&b, "complete -c herdbench -n %s -a '(__fish_complete_directories)'\n", cond)
		case "shell":
			fmt.Fprintf(&b, "complete -c herdbench -n %s -a 'bash zsh fish'\n", cond)
		case "command":
			fmt.Fprintf(&b, "complete -c herdbench -n %s -a %s\n", cond, fishQuote(strings.Join(slices.DeleteFunc(commandNames(), func(n string) bool { return n == "help" }), " ")))
		}
	}
	return b.String()
}
