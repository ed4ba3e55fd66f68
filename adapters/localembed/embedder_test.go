package localembed

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func cosine(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func mustNew(t testing.TB, opts Options) *Embedder {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNew_dimensionAndModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		dim       int
		wantDim   int
		wantModel string
		wantErr   bool
	}{
		{"default", 0, DefaultDimension, "engram-localembed-v1-d512", false},
		{"chosen", 256, 256, "engram-localembed-v1-d256", false},
		{"too small", 4, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := New(Options{Dimension: tt.dim})
			if (err != nil) != tt.wantErr {
				t.Fatalf("New err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if e.Dimension() != tt.wantDim || e.Model() != tt.wantModel {
				t.Errorf("Dimension, Model = %d, %q; want %d, %q", e.Dimension(), e.Model(), tt.wantDim, tt.wantModel)
			}
		})
	}
}

func TestEmbed_normalisedAndDeterministic(t *testing.T) {
	t.Parallel()
	texts := []string{"Caroline went to the LGBTQ support group", "我喜欢绘画和弹钢琴", "the of and", ""}
	a, err := mustNew(t, Options{}).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := mustNew(t, Options{}).Embed(context.Background(), texts)
	if !reflect.DeepEqual(a, b) {
		t.Error("two embedders gave different vectors for the same texts")
	}
	for i, v := range a {
		if len(v) != DefaultDimension {
			t.Fatalf("vector %d has %d values", i, len(v))
		}
		norm := math.Sqrt(cosine(v, v))
		wantZero := strings.TrimSpace(strings.ReplaceAll(texts[i], "the of and", "")) == ""
		switch {
		case wantZero && norm != 0:
			t.Errorf("text %q (no content words) has norm %v, want the zero vector", texts[i], norm)
		case !wantZero && math.Abs(norm-1) > 1e-5:
			t.Errorf("text %q has norm %v, want 1", texts[i], norm)
		}
	}
}

func TestEmbed_similarity(t *testing.T) {
	t.Parallel()
	e := mustNew(t, Options{})
	tests := []struct {
		name             string
		query, near, far string
	}{
		{"morphology", "painting a sunrise", "I painted the sunrise last week", "we adopted a dog from the shelter"},
		{"typo", "did you receive the package", "I recieved the pakage", "the weather was lovely"},
		{"compound and partial words", "photography", "my photographs of the lake", "a cooking class"},
		{"chinese", "我喜欢喝茶", "我很喜欢喝绿茶", "今天天气很好"},
		{"mixed chinese and english", "Python编程", "我喜欢用Python写代码", "我喜欢弹钢琴"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, n, f := e.EmbedOne(tt.query), e.EmbedOne(tt.near), e.EmbedOne(tt.far)
			if cn, cf := cosine(q, n), cosine(q, f); cn <= cf+0.03 {
				t.Errorf("cos(query, near) = %.3f, cos(query, far) = %.3f; want near clearly above far", cn, cf)
			}
		})
	}
}

func TestEmbed_ngramsCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	on := mustNew(t, Options{})
	off := mustNew(t, Options{NGramWeight: -1})
	a, b := "photography", "photographs"
	if cosine(off.EmbedOne(a), off.EmbedOne(b)) >= cosine(on.EmbedOne(a), on.EmbedOne(b)) {
		t.Error("without n-grams, related word forms should be less similar")
	}
}

func TestEmbed_honoursCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mustNew(t, Options{}).Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestEmbed_concurrentUseAgrees(t *testing.T) {
	t.Parallel()
	e := mustNew(t, Options{})
	want := e.EmbedOne("Melanie ran a charity race for mental health")
	done := make(chan []float32, 8)
	for range 8 {
		go func() {
			v, _ := e.Embed(context.Background(), []string{"Melanie ran a charity race for mental health"})
			done <- v[0]
		}()
	}
	for range 8 {
		if got := <-done; !reflect.DeepEqual(got, want) {
			t.Fatal("concurrent Embed differs")
		}
	}
}

var benchTexts = []string{
	"Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
	"Melanie: Wow, that's cool, Caroline! What happened that was so awesome? Did you hear any inspiring stories?",
	"Caroline: The transgender stories were so inspiring! I was so happy and thankful for all the support.",
	"Melanie: Yeah, I painted that lake sunrise last year! It's special to me.",
	"我今天去了绿禾公园散步，看到了一朵开得特别美的樱花，还有一只超级可爱的松鼠！",
	"文艺作品吧，像《了不起的盖茨比》这种充满情调的。",
	"I prefer short answers in English, and please remember that I'm allergic to peanuts.",
	"My project is a Go memory service called engram; the deadline is the end of March.",
}

func BenchmarkEmbed(b *testing.B) {
	for _, dim := range []int{256, 512, 1024} {
		e := mustNew(b, Options{Dimension: dim})
		b.Run(e.Model(), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Embed(ctx, benchTexts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(benchTexts))/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
