package charts

import (
	"image/color"
	"testing"
)

func TestColoursAreWellFormed(t *testing.T) {
	for name, hex := range Outcomes {
		if c := RGB(hex).(color.RGBA); c.A != 255 {
			t.Errorf("%s: %v", name, c)
		}
	}
	for _, hex := range Palette {
		RGB(hex)
	}
	if got := RGB("#4daf4a"); got != (color.RGBA{0x4d, 0xaf, 0x4a, 255}) {
		t.Errorf("RGB(#4daf4a) = %v", got)
	}
	for _, bad := range []string{"4daf4a", "#4daf4", "#zzzzzz"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RGB(%q) did not panic", bad)
				}
			}()
			RGB(bad)
		}()
	}
}

func TestInlinable(t *testing.T) {
	if !Inlinable("script", JS) {
		t.Error("charts.js holds </script")
	}
	if Inlinable("script", "a </SCRIPT> b") || !Inlinable("style", "a </script> b") {
		t.Error("Inlinable is not a case-blind search for the tag's end")
	}
}

func TestScriptHash(t *testing.T) {
	// echo -n '' | openssl dgst -sha256 -binary | base64
	if got := ScriptHash(""); got != "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='" {
		t.Errorf("ScriptHash(\"\") = %s", got)
	}
}
