package secret

import (
	"slices"
	"strings"
	"testing"
)

// Every detector proves itself: each example is found as the detector's kind, each
// counter-example is found by no detector at all.
func TestDetectors_examplesFireAndCounterExamplesDoNot(t *testing.T) {
	t.Parallel()
	for _, d := range detectors {
		t.Run(string(d.Kind), func(t *testing.T) {
			t.Parallel()
			if len(d.Examples) < 2 || len(d.CounterExamples) < 2 {
				t.Errorf("%d examples and %d counter-examples, want at least 2 of each", len(d.Examples), len(d.CounterExamples))
			}
			for _, ex := range d.Examples {
				if f := compile(d).find(ex); len(f) == 0 {
					t.Errorf("does not fire on %q (Find: %+v)", ex, Find(ex))
				}
			}
			for _, ex := range d.CounterExamples {
				if f := Find(ex); len(f) > 0 {
					t.Errorf("counter-example %q found %+v (%q)", ex, f, ex[f[0].Start:f[0].End])
				}
			}
		})
	}
}

func TestMask_keepsWhatIsSafeAndRemovesTheSecret(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"My credit card number is 4111 1111 1111 1111.", "My credit card number is 4111 **** **** 1111."},
		{"card 4111111111111111 please", "card 4111********1111 please"},
		{"My SSN is 123-45-6789.", "My SSN is ***-**-6789."},
		{"My wifi password is hunter2-Blue!", "My wifi password is [password]!"},
		{"password: Tr0ub4dor&3, ok?", "password: [password], ok?"},
		{"我家wifi密码是12345678。", "我家wifi密码是[password]。"},
		{"key sk-proj-4fT9xQ2LmZ7wRb8KcV1nHs3YdE6uJpA0 works", "key [api_key] works"},
		{"My IBAN is DE89 3704 0044 0532 0130 00.", "My IBAN is DE89 **** **** **** **30 00."},
		{"我的身份证号是11010519491231002X", "我的身份证号是**************002X"},
		{"My phone number is 415-555-0132.", "My phone number is ***-***-0132."},
		{"I love jazz.", "I love jazz."},
	} {
		if got := Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A masked text holds no secret any more, and Holds still sees that it held one;
// masking twice changes nothing.
func TestMask_isFinalAndRecognisable(t *testing.T) {
	t.Parallel()
	for _, d := range detectors {
		for _, ex := range d.Examples {
			m := Mask(ex)
			if f := Find(m); len(f) > 0 {
				t.Errorf("Mask(%q) = %q still holds %+v", ex, m, f)
			}
			if !Holds(m) {
				t.Errorf("Holds(Mask(%q) = %q) = false", ex, m)
			}
			if Mask(m) != m {
				t.Errorf("masking %q twice changed it", ex)
			}
		}
		for _, ex := range d.CounterExamples {
			if Holds(ex) {
				t.Errorf("Holds(%q) = true for a counter-example", ex)
			}
		}
	}
}

func TestFind_overlapKeepsTheFirst(t *testing.T) {
	t.Parallel()
	got := Find("my password is sk-proj-4fT9xQ2LmZ7wRb8KcV1nHs3YdE6uJpA0 and my SSN is 123-45-6789")
	kinds := KindsOf(got)
	if len(got) != 2 || !slices.Equal(kinds, []Kind{KindSSN, KindAPIKey}) {
		t.Errorf("got %+v (kinds %v), want the key (not the password phrase around it) and the SSN", got, kinds)
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Mode
		ok   bool
	}{{"mask", ModeMask, true}, {"flag", ModeFlag, true}, {"off", ModeOff, true}, {"MASK", "", false}, {"", "", false}} {
		got, err := ParseMode(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseMode(%q) = %q, %v", c.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "mask, flag or off") {
			t.Errorf("error %q does not say the modes", err)
		}
	}
	if ModeFlag.Stored("card 4111111111111111") != "card 4111111111111111" || ModeOff.Screens() || !ModeFlag.Screens() {
		t.Error("flag stores as given, off screens nothing")
	}
}
