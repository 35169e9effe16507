package clients

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A request's path, header values and inline body may hold placeholders,
// filled once per logical request (its retries resend the same bytes):
//
//	{client}     the client's index in its cohort, from 0 (an open
//	             workload's arrival index)
//	{request}    the logical request's number among the client's, from 0
//	{rand:A:B}   a whole number drawn uniformly from A to B, both included
//	{uuid}       a version 4 UUID drawn from the request's stream
//
// {rand} and {uuid} draw from the logical request's own stream (after the
// mix's draw), in the order they are written, so a seed repeats them. A
// brace followed by anything but a lower-case letter is literal text
// (a JSON body's {"a": 1}); {{ writes a literal {.
type placeholder struct {
	kind   phKind
	lo, hi int64
}

type phKind uint8

const (
	phClient phKind = iota + 1
	phRequest
	phRand
	phUUID
)

// PlaceholderNames are the placeholders a request may hold.
var PlaceholderNames = []string{"{client}", "{request}", "{rand:A:B}", "{uuid}"}

// ErrPlaceholder is the error of an unknown or malformed placeholder.
var ErrPlaceholder = errors.New("placeholder")

// segment is literal bytes, or (ph.kind != 0) a placeholder.
type segment struct {
	lit []byte
	ph  placeholder
}

// parseTemplate cuts s into literal text and placeholders.
func parseTemplate(s string) ([]segment, error) {
	var out []segment
	var lit []byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '{' {
			lit = append(lit, ch)
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			lit = append(lit, '{')
			i++
			continue
		}
		if i+1 >= len(s) || s[i+1] < 'a' || s[i+1] > 'z' {
			lit = append(lit, ch)
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%w %q is not closed; write one of %s (or {{ for a literal brace)", ErrPlaceholder, s[i:], strings.Join(PlaceholderNames, ", "))
		}
		ph, err := parsePlaceholder(s[i+1 : i+end])
		if err != nil {
			return nil, err
		}
		if len(lit) > 0 {
			out = append(out, segment{lit: lit})
			lit = nil
		}
		out = append(out, segment{ph: ph})
		i += end
	}
	if len(lit) > 0 {
		out = append(out, segment{lit: lit})
	}
	return out, nil
}

func parsePlaceholder(name string) (placeholder, error) {
	switch name {
	case "client":
		return placeholder{kind: phClient}, nil
	case "request":
		return placeholder{kind: phRequest}, nil
	case "uuid":
		return placeholder{kind: phUUID}, nil
	}
	if rest, ok := strings.CutPrefix(name, "rand:"); ok {
		a, b, ok := strings.Cut(rest, ":")
		lo, err1 := strconv.ParseInt(a, 10, 64)
		hi, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || lo > hi {
			return placeholder{}, fmt.Errorf("%w {%s}: write {rand:A:B} with whole numbers A <= B, e.g. {rand:1:1000}", ErrPlaceholder, name)
		}
		return placeholder{kind: phRand, lo: lo, hi: hi}, nil
	}
	return placeholder{}, fmt.Errorf("%w {%s} is unknown; valid: %s (or {{ for a literal brace)", ErrPlaceholder, name, strings.Join(PlaceholderNames, ", "))
}

// CheckPlaceholders returns the first problem with s's placeholders, and
// whether s holds any.
func CheckPlaceholders(s string) (bool, error) {
	segs, err := parseTemplate(s)
	if err != nil {
		return false, err
	}
	for _, g := range segs {
		if g.ph.kind != 0 {
			return true, nil
		}
	}
	return false, nil
}

// filler fills placeholders for one logical request.
type filler struct {
	src    rand.PCG
	client int
	n      int
}

func (f *filler) appendTo(b []byte, segs []segment) []byte {
	for _, g := range segs {
		switch g.ph.kind {
		case 0:
			b = append(b, g.lit...)
		case phClient:
			b = strconv.AppendInt(b, int64(f.client), 10)
		case phRequest:
			b = strconv.AppendInt(b, int64(f.n), 10)
		case phRand:
			span := uint64(g.ph.hi) - uint64(g.ph.lo) // exact, even across 0
			v := int64(f.src.Uint64())
			if span != ^uint64(0) {
				v = g.ph.lo + int64(uint64n(&f.src, span+1))
			}
			b = strconv.AppendInt(b, v, 10)
		case phUUID:
			b = appendUUID(b, f.src.Uint64(), f.src.Uint64())
		}
	}
	return b
}

// uint64n draws uniformly from [0, n), n > 0, without bias (Lemire's
// multiply-and-reject, as math/rand/v2's Uint64N) and without allocating.
func uint64n(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

const hexDigits = "0123456789abcdef"

// appendUUID appends the version 4 (random) UUID of the 128 bits hi, lo.
func appendUUID(b []byte, hi, lo uint64) []byte {
	var u [16]byte
	for i := range 8 {
		u[i] = byte(hi >> (56 - 8*i))
		u[8+i] = byte(lo >> (56 - 8*i))
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&15])
	}
	return b
}

// Template is a request's text (its head, or its body) cut into literal
// runs and placeholders, for a wire to write once and fill per logical
// request (Filler.Fill).
type Template struct{ segs []segment }

// ParseTemplate cuts s into literal text and placeholders.
func ParseTemplate(s string) (Template, error) {
	segs, err := parseTemplate(s)
	return Template{segs}, err
}

// Literal returns the template of b as it is, placeholders or not.
func Literal(b []byte) Template { return Template{[]segment{{lit: b}}} }

// Fixed returns the template's text when it holds no placeholder and is at
// most one run (ok), so that it is written as it is.
func (t Template) Fixed() (text []byte, ok bool) {
	switch {
	case len(t.segs) == 0:
		return nil, true
	case len(t.segs) == 1 && t.segs[0].ph.kind == 0:
		return t.segs[0].lit, true
	}
	return nil, false
}

// Append returns the template with the literal text lit after it, joined
// to its last run when that is literal too.
func (t Template) Append(lit []byte) Template {
	if n := len(t.segs); n > 0 && t.segs[n-1].ph.kind == 0 {
		last := t.segs[n-1].lit
		segs := append([]segment(nil), t.segs...)
		segs[n-1].lit = append(last[:len(last):len(last)], lit...)
		return Template{segs}
	}
	return Template{append(t.segs[:len(t.segs):len(t.segs)], segment{lit: lit})}
}

// Empty reports whether the template has nothing to write.
func (t Template) Empty() bool { return len(t.segs) == 0 }

// Filler fills one logical request's placeholders: the same bytes in every
// attempt of it, from the request's own stream.
type Filler struct{ f filler }

// NewFiller returns the filler of client's logical request n under seed
// (the run's), its draws after the mix's when the mix has more than one
// request.
func NewFiller(seed uint64, mix *Mix, client, n int) Filler {
	f := filler{client: client, n: n}
	requestStream(&f.src, seed, client, n)
	if mix != nil && len(mix.Requests) > 1 {
		f.src.Uint64() // the mix's draw
	}
	return Filler{f}
}

// Fill appends t's text to b, its placeholders filled.
func (f *Filler) Fill(b []byte, t Template) []byte { return f.f.appendTo(b, t.segs) }

// Segments returns how many literal runs and placeholders the template
// holds.
func (t Template) Segments() int { return len(t.segs) }
