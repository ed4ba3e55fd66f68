package org

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"engram/domain/invalid"
)

// testSyllables is a tiny romanisation table standing in for the pinyin adapter.
var testSyllables = map[rune]string{
	'王': "wang", '小': "xiao", '明': "ming", '晓': "xiao", '李': "li", '雷': "lei",
	'欧': "ou", '阳': "yang", '娜': "na", '张': "zhang", '三': "san", '单': "dan",
}

func syllable(r rune) string { return testSyllables[r] }

func keysOf(ks []NameKey) map[string]Strength {
	out := map[string]Strength{}
	for _, k := range ks {
		out[k.Key] = k.Strength
	}
	return out
}

func TestNameKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		names []string
		nicks []string
		want  map[string]Strength
	}{
		{"three-character Chinese name: full, given name, informal, pinyin", []string{"王小明"}, nil, map[string]Strength{
			"王小明": StrengthName, "小明": StrengthAlias, "小王": StrengthPhonetic, "老王": StrengthPhonetic,
			"wangxiaoming": StrengthPhonetic, "xiaomingwang": StrengthPhonetic, "xiaoming": StrengthPhonetic,
		}},
		{"two-character name has no given-name alias", []string{"李雷"}, nil, map[string]Strength{
			"李雷": StrengthName, "小李": StrengthPhonetic, "老李": StrengthPhonetic, "lilei": StrengthPhonetic, "leili": StrengthPhonetic,
		}},
		{"compound surname keeps the given name whole", []string{"欧阳娜娜"}, nil, map[string]Strength{
			"欧阳娜娜": StrengthName, "娜娜": StrengthAlias, "ouyangnana": StrengthPhonetic, "nanaouyang": StrengthPhonetic, "nana": StrengthPhonetic,
		}},
		{"Latin name: whole, words, reversed; case and spaces do not matter", []string{"  John   SMITH "}, nil, map[string]Strength{
			"johnsmith": StrengthName, "john": StrengthAlias, "smith": StrengthAlias, "smithjohn": StrengthAlias,
		}},
		{"a nickname is taken whole, with its pinyin; the strongest strength wins", []string{"Xiao Ming"}, []string{"小明", "Captain"}, map[string]Strength{
			"xiaoming": StrengthName, "xiao": StrengthAlias, "ming": StrengthAlias, "mingxiao": StrengthAlias, "小明": StrengthName,
			"captain": StrengthName,
		}},
		{"a surname with a reading of its own", []string{"单明"}, nil, map[string]Strength{
			"单明": StrengthName, "小单": StrengthPhonetic, "老单": StrengthPhonetic, "shanming": StrengthPhonetic, "mingshan": StrengthPhonetic,
		}},
		{"unknown characters: no phonetic forms", []string{"赵钱孙"}, nil, map[string]Strength{
			"赵钱孙": StrengthName, "钱孙": StrengthAlias, "小赵": StrengthPhonetic, "老赵": StrengthPhonetic,
		}},
		{"full-width letters fold, punctuation goes", []string{"Ｊｅａｎ-Luc"}, nil, map[string]Strength{
			"jeanluc": StrengthName, "jean": StrengthAlias, "luc": StrengthAlias, "lucjean": StrengthAlias,
		}},
		{"empty and punctuation-only names give nothing", []string{"", " ·- "}, nil, map[string]Strength{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := keysOf(NameKeys(tc.names, tc.nicks, syllable)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NameKeys(%q, %q)\n got %v\nwant %v", tc.names, tc.nicks, got, tc.want)
			}
		})
	}
}

func TestQueryKeys_chineseQueryAlsoLooksUpItsPinyin(t *testing.T) {
	t.Parallel()
	got := QueryKeys(" 晓明 ", syllable)
	want := []QueryKey{{"晓明", StrengthName}, {"xiaoming", StrengthPhonetic}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := QueryKeys("Xiao-Ming", syllable); !reflect.DeepEqual(got, []QueryKey{{"xiaoming", StrengthName}}) {
		t.Errorf("latin query: %v", got)
	}
	if got := QueryKeys(" - ", syllable); got != nil {
		t.Errorf("empty query: %v", got)
	}
}

func TestBestMatches_ranksByStrengthThroughTheQueryKey(t *testing.T) {
	t.Parallel()
	// 王小明 has the alias 小明; 李晓明 only shares the pinyin "xiaoming".
	var hits []KeyHit
	for user, name := range map[string]string{"u-wang": "王小明", "u-li": "李晓明", "u-zhang": "张三"} {
		for _, k := range NameKeys([]string{name}, nil, syllable) {
			hits = append(hits, KeyHit{UserID: user, Key: k.Key, Strength: k.Strength})
		}
	}
	query := QueryKeys("小明", syllable)
	var found []KeyHit
	for _, h := range hits {
		for _, q := range query {
			if h.Key == q.Key {
				found = append(found, h)
			}
		}
	}
	got := BestMatches(query, found)
	want := []Match{{"u-wang", "小明", StrengthAlias}, {"u-li", "xiaoming", StrengthPhonetic}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// A Latin query meets the pinyin keys of both; neither is better than phonetic.
	query = QueryKeys("Xiao Ming", syllable)
	found = found[:0]
	for _, h := range hits {
		if h.Key == "xiaoming" {
			found = append(found, h)
		}
	}
	got = BestMatches(query, found)
	want = []Match{{"u-li", "xiaoming", StrengthPhonetic}, {"u-wang", "xiaoming", StrengthPhonetic}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("latin: got %v, want %v", got, want)
	}
}

func TestCheckManager(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, user, manager string
		chain               []string // the manager's own managers, direct first
		cycle               string   // "" when allowed
	}{
		{"no manager", "a", "", nil, ""},
		{"a manager at the top", "a", "b", nil, ""},
		{"a long chain without the user", "a", "b", []string{"c", "d", "e"}, ""},
		{"self", "a", "a", nil, "nobody manages themselves"},
		{"two-cycle", "a", "b", []string{"a"}, "a → b → a"},
		{"long cycle", "a", "b", []string{"c", "d", "a", "x"}, "a → b → c → d → a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckManager(tc.user, tc.manager, tc.chain)
			if tc.cycle == "" {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			var ve *invalid.Error
			if !errors.As(err, &ve) || ve.Fields[0].Field != "manager_id" || !strings.Contains(ve.Fields[0].Problem, tc.cycle) {
				t.Fatalf("err = %v, want a manager_id validation error showing %q", err, tc.cycle)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	chain := []string{"lead", "director", "ceo"} // target's managers, direct first
	for _, tc := range []struct {
		actor string
		want  Access
	}{
		{"target", Access{Relation: RelationSelf}},
		{"lead", Access{Relation: RelationManager, Levels: 1}},
		{"ceo", Access{Relation: RelationManager, Levels: 3}},
		{"peer", Access{Relation: RelationNone}},
		{"report-of-target", Access{Relation: RelationNone}},
	} {
		if got := Decide(tc.actor, "target", chain); got != tc.want || got.Allowed() != (tc.want.Relation != RelationNone) {
			t.Errorf("Decide(%s) = %+v, want %+v", tc.actor, got, tc.want)
		}
	}
}

func TestNewMember(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	m, err := NewMember("u1", MemberInput{DisplayName: " 王小明 ", Department: "研发中心", Position: "工程师", ManagerID: " lead "}, now)
	if err != nil || m.DisplayName != "王小明" || m.ManagerID != "lead" || !m.UpdatedAt.Equal(now) {
		t.Fatalf("m = %+v, err %v", m, err)
	}
	for _, tc := range []struct {
		in    MemberInput
		field string
	}{
		{MemberInput{}, "display_name"},
		{MemberInput{DisplayName: strings.Repeat("名", 101)}, "display_name"},
		{MemberInput{DisplayName: "x", Department: "a\x00b"}, "department"},
		{MemberInput{DisplayName: "x", Position: strings.Repeat("p", 101)}, "position"},
		{MemberInput{DisplayName: "x", ManagerID: "u1"}, "manager_id"},
		{MemberInput{DisplayName: "x", ManagerID: strings.Repeat("m", 129)}, "manager_id"},
	} {
		_, err := NewMember("u1", tc.in, now)
		var ve *invalid.Error
		if !errors.As(err, &ve) || ve.Fields[0].Field != tc.field {
			t.Errorf("%+v: err = %v, want a %s error", tc.in, err, tc.field)
		}
	}
}

func TestTopHits_oneKeyPerUserAtItsStrongestForTheBestUsers(t *testing.T) {
	t.Parallel()
	hits := []KeyHit{
		{"b", "xiaoming", StrengthPhonetic}, {"a", "小明", StrengthAlias}, {"a", "小明", StrengthName}, // org and profile keys
		{"c", "小明", StrengthAlias}, {"a", "xiaoming", StrengthPhonetic}, {"d", "xiaoming", StrengthPhonetic},
	}
	got := TopHits(hits, 2)
	want := []KeyHit{{"a", "小明", StrengthName}, {"c", "小明", StrengthAlias}, {"a", "xiaoming", StrengthPhonetic}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := TopHits(nil, 5); len(got) != 0 {
		t.Errorf("no hits: %v", got)
	}
}
