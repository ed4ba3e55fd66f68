package users

import (
	"slices"
	"testing"
)

func TestMergeUsers_unionInOrderCutAtTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lists [][]string
		limit int
		want  []string
		more  bool
	}{
		{"nothing stored", [][]string{nil, nil}, 3, nil, false},
		{"one store", [][]string{{"a", "b"}}, 3, []string{"a", "b"}, false},
		{"overlapping stores", [][]string{{"a", "c", "e"}, {"b", "c", "d"}}, 3, []string{"a", "b", "c"}, true},
		{"exactly the limit", [][]string{{"a", "b"}, {"b", "c"}}, 3, []string{"a", "b", "c"}, false},
		{"one store has more", [][]string{{"a", "b", "c", "d"}, {"b"}}, 3, []string{"a", "b", "c"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := mergeUsers(tt.lists, tt.limit)
			if !slices.Equal(got, tt.want) || more != tt.more {
				t.Errorf("mergeUsers = %v %v, want %v %v", got, more, tt.want, tt.more)
			}
		})
	}
}
