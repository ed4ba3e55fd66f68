package lifecycle

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"engram/domain/memory"
)

func TestPlanConsolidation_decidesEveryWriteFromTheRows(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	now := start.Add(48 * time.Hour)
	scope := memory.Scope{Tenant: "t1", User: "alice"}
	n := 0
	row := func(key, content string, importance, ttlDays int, age time.Duration) memory.Memory {
		t.Helper()
		n++
		in := memory.DraftInput{Type: "fact", Content: content, Importance: &importance}
		if ttlDays > 0 {
			in.TTLDays = &ttlDays
		}
		d, err := memory.ParseDraft(in, memory.Source{Channel: memory.ChannelTool})
		if err != nil {
			t.Fatal(err)
		}
		m, err := memory.New(fmt.Sprint("m", n), scope, memory.MustParseKey(key), d, memory.Policy{}, now.Add(-age))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	expired := row("trip.plan", "User plans a trip to Japan", 3, 1, 47*time.Hour)
	deleted := row("old.thing", "User liked tea", 3, 0, time.Hour).Deactivate(consolidationSource, now)
	englishLater := row("reply-language", "Answer in English", 3, 0, time.Minute)
	chinese := row("reply.language", "Answer in Chinese", 3, 0, time.Hour)
	french := row("reply_language", "Answer in French", 3, 0, 2*time.Hour)
	jazz := row("music.jazz", "User loves jazz music", 2, 0, time.Hour)
	jazzImportant := row("likes.jazz", "User loves jazz music!", 4, 0, 2*time.Hour)
	jazzAgain := row("hobby.jazz", "user loves JAZZ music", 2, 0, 3*time.Hour)
	city := row("home.city", "User lives in Wuhan", 3, 0, time.Hour)
	noise := row("tool-list", "weather, calendar", 3, 0, time.Hour)
	noiseGone := row("tool-names", "weather", 3, 0, time.Hour).Deactivate(consolidationSource, now)

	type planned struct {
		survivor, copyOf, says, count string
	}
	for _, tt := range []struct {
		name       string
		all, noisy []memory.Memory
		similarity float64
		expire     []string
		noise      []string
		folds      []planned
	}{
		{name: "nothing to do", all: []memory.Memory{city, deleted}, similarity: 0.9},
		{name: "expired and noise", all: []memory.Memory{expired, city}, noisy: []memory.Memory{noise, noiseGone}, similarity: 0.9,
			expire: []string{"trip.plan"}, noise: []string{"tool-list"}},
		{name: "key variants fold under the scheme's key with the content said last", all: []memory.Memory{chinese, englishLater, french},
			similarity: 0.9, folds: []planned{
				{"reply.language", "reply-language", "Answer in English", CountKeysNormalised},
				{"reply.language", "reply_language", "Answer in English", CountKeysNormalised},
			}},
		{name: "the survivor said it last: it keeps its content", all: []memory.Memory{chinese, french}, similarity: 0.9,
			folds: []planned{{"reply.language", "reply_language", "", CountKeysNormalised}}},
		{name: "near-duplicates fold into the more important, then the more recent", all: []memory.Memory{jazzAgain, jazz, jazzImportant, city},
			similarity: 0.9, folds: []planned{
				{"likes.jazz", "music.jazz", "", CountMerged},
				{"likes.jazz", "hobby.jazz", "", CountMerged},
			}},
		{name: "below the similarity nothing merges", all: []memory.Memory{jazz, city}, similarity: 0.9},
		{name: "a similarity of 1 still merges the same content", all: []memory.Memory{jazz, jazzAgain}, similarity: 1,
			folds: []planned{{"music.jazz", "hobby.jazz", "", CountMerged}}},
		{name: "variants first, then duplicates of what is left", all: []memory.Memory{expired, chinese, englishLater, jazz, jazzImportant},
			similarity: 0.9, expire: []string{"trip.plan"}, folds: []planned{
				{"reply.language", "reply-language", "Answer in English", CountKeysNormalised},
				{"likes.jazz", "music.jazz", "", CountMerged},
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := planConsolidation(tt.all, tt.noisy, now, tt.similarity)
			var expire, noise []string
			for _, e := range plan.ends {
				switch {
				case e.op == memory.OpExpire && e.count == CountExpired:
					expire = append(expire, e.key.String())
				case e.op == memory.OpDelete && e.count == CountNoiseDeleted:
					noise = append(noise, e.key.String())
				default:
					t.Errorf("an ending %+v is neither an expiry nor a noise deletion", e)
				}
			}
			if !slices.Equal(expire, tt.expire) || !slices.Equal(noise, tt.noise) {
				t.Errorf("expire %v noise %v, want %v and %v", expire, noise, tt.expire, tt.noise)
			}
			var folds []planned
			for _, f := range plan.folds {
				p := planned{f.survivor.String(), f.copyOf.String(), "", f.count}
				if f.says != nil {
					p.says = f.says.Content()
				}
				folds = append(folds, p)
			}
			if !slices.Equal(folds, tt.folds) {
				t.Errorf("folds %+v, want %+v", folds, tt.folds)
			}
		})
	}
}
