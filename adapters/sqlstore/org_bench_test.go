package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/adapters/pinyin"
	"engram/domain/org"
)

// BenchmarkFindByNameKeys resolves names among 10,000 members of one tenant (each
// with its full-name, given-name, informal and pinyin keys): the lookup
// GET /v1/org/users?name= makes. 小明 meets a handful of keys; 老王 meets one key of
// every 王 (500 users), ranked and cut to 20.
func BenchmarkFindByNameKeys(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchFindByNameKeys(b, openSQLiteForTest(b)) })
	b.Run("postgres", func(b *testing.B) { benchFindByNameKeys(b, openPostgresForTest(b)) })
}

func benchFindByNameKeys(b *testing.B, db *DB) {
	store := NewOrgStore(db)
	roman := pinyin.New()
	ctx := context.Background()
	surnames := []rune("王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗")
	given := []rune("明华强伟芳娜敏静丽军磊洋勇艳杰涛超秀英霞平刚桂")
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range 10000 {
		name := string(surnames[i%len(surnames)]) + string(given[(i/len(surnames))%len(given)]) + string(given[(i/7)%len(given)])
		m, err := org.NewMember(fmt.Sprintf("u%05d", i), org.MemberInput{DisplayName: name}, now)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := store.PutMember(ctx, "acme", m, org.NameKeys([]string{name}, nil, roman.Syllable)); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"小明", "老王"} {
		query := org.QueryKeys(name, roman.Syllable)
		keys := make([]string, len(query))
		for i, q := range query {
			keys[i] = q.Key
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := store.FindByNameKeys(ctx, "acme", keys, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
