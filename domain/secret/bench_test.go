package secret

import "testing"

func BenchmarkFind(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"plain English, 48 bytes", "I love jazz and I drink green tea every morning."},
		{"LoCoMo-like turn with numbers, 240 bytes", "We moved to Berlin in 2021 and the rent is 1,250 euros a month; my daughter was born on 2019-03-14 and starts school in September. The flight LH1234 leaves at 10:30 from gate B12, so call me if it is late."},
		{"card and password, 90 bytes", "My credit card number is 4111 1111 1111 1111 and my wifi password is hunter2-Blue!"},
		{"Chinese, 60 bytes", "我每天早上跑5公里，然后喝一杯咖啡，九点开始上班。"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Find(c.text)
			}
		})
	}
}
