package profile

import (
	"strings"

	"engram/domain/invalid"
)

// LanguageTag reads a language as a user names it in a conversation ("Chinese",
// "中文", "British English", "繁体中文") into the tag the profile keeps ("zh",
// "en-GB", "zh-Hant"); a tag is accepted as written ("en-US"). The names are the
// ones people use when they ask for a reply language, English and Chinese; a name
// it does not know is an error, so a guess never lands in the profile.
func LanguageTag(name string) (string, error) {
	n := strings.ToLower(strings.Join(strings.Fields(name), " "))
	n = strings.TrimSuffix(strings.TrimSuffix(n, " language"), "语言")
	if tag, ok := languageNames[n]; ok {
		return tag, nil
	}
	if tag := strings.TrimSpace(name); tag != "" && checkLanguage(FieldLanguage, tag) == nil {
		return tag, nil
	}
	return "", invalid.FieldValue(string(FieldLanguage), name, `names no language engram knows; say it as a tag such as "zh", "en" or "en-US"`)
}

// languageNames maps the names of the languages users ask for, lower-cased, to
// their tags.
var languageNames = map[string]string{
	"chinese": "zh", "mandarin": "zh", "mandarin chinese": "zh", "simplified chinese": "zh-Hans",
	"traditional chinese": "zh-Hant", "cantonese": "yue",
	"english": "en", "british english": "en-GB", "american english": "en-US",
	"japanese": "ja", "korean": "ko", "french": "fr", "german": "de", "spanish": "es", "italian": "it",
	"portuguese": "pt", "russian": "ru", "arabic": "ar", "hindi": "hi", "vietnamese": "vi", "thai": "th",
	"dutch": "nl", "polish": "pl", "turkish": "tr", "indonesian": "id", "malay": "ms",

	"中文": "zh", "汉语": "zh", "普通话": "zh", "国语": "zh", "华语": "zh", "简体中文": "zh-Hans", "简体": "zh-Hans",
	"繁体中文": "zh-Hant", "繁体": "zh-Hant", "繁体字": "zh-Hant", "繁體中文": "zh-Hant", "粤语": "yue", "广东话": "yue",
	"英文": "en", "英语": "en", "英式英语": "en-GB", "美式英语": "en-US",
	"日语": "ja", "日文": "ja", "韩语": "ko", "韩文": "ko", "法语": "fr", "法文": "fr", "德语": "de", "德文": "de",
	"西班牙语": "es", "西班牙文": "es", "意大利语": "it", "葡萄牙语": "pt", "俄语": "ru", "俄文": "ru",
	"阿拉伯语": "ar", "越南语": "vi", "泰语": "th", "荷兰语": "nl", "土耳其语": "tr", "印尼语": "id",
}
