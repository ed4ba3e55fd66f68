"""Writes labelled.jsonl: lines that hold secrets (with their kinds) and look-alikes
that hold none. Values are drawn with a fixed seed; card numbers, IBANs and Chinese
identity numbers get valid check digits unless a line is a look-alike whose check
digit is wrong on purpose. Run: python3 generate.py > labelled.jsonl"""
import json, random

R = random.Random(20261202)

def luhn_ok(s):
    t = 0
    for i, c in enumerate(reversed(s)):
        d = int(c)
        if i % 2:
            d *= 2
            d = d - 9 if d > 9 else d
        t += d
    return t % 10 == 0

def luhn_complete(p):
    for c in "0123456789":
        if luhn_ok(p + c):
            return p + c

def digits(n):
    return "".join(R.choice("0123456789") for _ in range(n))

def card(kind=None):
    kind = kind or R.choice(["visa", "mc", "amex", "unionpay", "discover", "jcb"])
    if kind == "visa":
        p, n = "4" + digits(14), 16
    elif kind == "mc":
        p, n = str(R.randint(51, 55)) + digits(13), 16
    elif kind == "amex":
        p, n = R.choice(["34", "37"]) + digits(12), 15
    elif kind == "unionpay":
        n = R.choice([16, 19])
        p = "62" + digits(n - 3)
    elif kind == "discover":
        p, n = "6011" + digits(11), 16
    else:
        p, n = str(R.randint(3528, 3589)) + digits(11), 16
    return luhn_complete(p)

def group(num, sep=" "):
    if len(num) == 15:
        return num[:4] + sep + num[4:10] + sep + num[10:]
    return sep.join(num[i:i + 4] for i in range(0, len(num), 4))

def card_text():
    c = card()
    style = R.choice(["plain", "space", "dash"])
    return c if style == "plain" or len(c) == 19 else group(c, " " if style == "space" else "-")

def bad_luhn(c):
    last = int(c[-1])
    return c[:-1] + str((last + R.randint(1, 9)) % 10)

def iban(cc, bban):
    s = bban + cc + "00"
    n = int("".join(str(int(ch, 36)) for ch in s))
    return cc + "%02d" % (98 - n % 97) + bban

IBAN_BBAN = {"DE": (18, "n"), "GB": (18, "gb"), "FR": (23, "fr"), "ES": (20, "n"), "NL": (14, "nl"),
             "IT": (23, "it"), "CH": (17, "n"), "BE": (12, "n"), "AT": (16, "n"), "PL": (24, "n")}

def iban_text(grouped=None):
    cc = R.choice(list(IBAN_BBAN))
    n, style = IBAN_BBAN[cc]
    if style == "gb":
        bban = "".join(R.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(4)) + digits(14)
    elif style == "nl":
        bban = "".join(R.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(4)) + digits(10)
    elif style == "it":
        bban = R.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + digits(10) + digits(12)
    elif style == "fr":
        bban = digits(21) + digits(2)
    else:
        bban = digits(n)
    v = iban(cc, bban)
    if grouped is None:
        grouped = R.random() < 0.5
    return " ".join(v[i:i + 4] for i in range(0, len(v), 4)) if grouped else v

def bad_iban():
    v = iban_text(grouped=False)
    d = int(v[2:4])
    v = v[:2] + "%02d" % ((d + 1) % 100 if d < 98 else 2) + v[4:]
    return v

W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
M = "10X98765432"

def cnid(valid=True):
    region = R.choice(["110105", "310104", "440305", "330106", "510107", "420111", "320102", "370202"])
    y, m, d = R.randint(1950, 2005), R.randint(1, 12), R.randint(1, 28)
    p = region + "%04d%02d%02d" % (y, m, d) + digits(3)
    check = M[sum(int(a) * b for a, b in zip(p, W)) % 11]
    if not valid:
        check = R.choice([c for c in "0123456789X" if c != check])
    return p + check

def ssn():
    while True:
        a = R.randint(1, 899)
        if a != 666:
            break
    return "%03d-%02d-%04d" % (a, R.randint(1, 99), R.randint(1, 9999))

def us_phone():
    a, b, c = R.randint(201, 989), R.randint(200, 999), R.randint(0, 9999)
    return R.choice(["%d-%d-%04d", "(%d) %d-%04d", "+1 %d %d %04d", "%d.%d.%04d"]) % (a, b, c)

def cn_mobile():
    return "1" + R.choice("3456789") + digits(9)

def alnum(n, chars="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"):
    while True:
        s = "".join(R.choice(chars) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s

def api_key():
    return R.choice([
        lambda: "sk-" + alnum(48),
        lambda: "sk-proj-" + alnum(40),
        lambda: "sk-ant-api03-" + alnum(40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        lambda: "AKIA" + alnum(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
        lambda: "ghp_" + alnum(36),
        lambda: "github_pat_" + alnum(22) + "_" + alnum(59),
        lambda: "xoxb-" + digits(12) + "-" + digits(13) + "-" + alnum(24),
        lambda: "xoxp-" + digits(11) + "-" + digits(12) + "-" + alnum(32, "abcdef0123456789"),
        lambda: "sk_live_" + alnum(24),
        lambda: "AIza" + alnum(35, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        lambda: "glpat-" + alnum(20),
    ])()

def b64url(n):
    return alnum(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

def jwt():
    return "eyJ" + b64url(R.randint(20, 40)) + ".eyJ" + b64url(R.randint(30, 80)) + "." + b64url(43)

def pem():
    kind = R.choice(["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "])
    body = "\n".join(alnum(64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(R.randint(2, 4)))
    end = "" if R.random() < 0.2 else "\n-----END %sPRIVATE KEY-----" % kind
    return "-----BEGIN %sPRIVATE KEY-----\n%s%s" % (kind, body, end)

def password():
    return R.choice([
        lambda: R.choice(["hunter", "Blue", "Sunny", "tiger", "Panda", "rocket", "maple"]) + str(R.randint(2, 9999)) + R.choice(["", "!", "#", "-x"]),
        lambda: alnum(R.randint(8, 14)),
        lambda: R.choice(["Tr0ub4dor&3", "P@ssw0rd2024", "qwerty123", "iloveyou88", "Zx9!kQ2m", "abc12345", "letmein42!"]),
        lambda: R.choice(["sunshine", "dragonfly", "marmalade", "butterfly", "chocolate", "pineapple"]),
    ])()

def pin():
    return digits(R.choice([4, 6]))

lines = []

def add(text, lang, kinds, note=""):
    row = {"text": text, "lang": lang, "kinds": kinds}
    if note:
        row["note"] = note
    lines.append(row)

# --- cards
EN_CARD = ["My credit card number is {}.", "card: {} exp 09/28", "Please charge {} for the order.",
           "my visa is {} if you need it", "The company card is {}, keep it safe.", "use {} for the hotel booking",
           "debit card {} cvv on the back", "Here is my card {} — expires next year.", "{} is my Mastercard",
           "pay with {}"]
ZH_CARD = ["我的信用卡号是{}", "银行卡：{}", "用这张卡付款 {}", "卡号 {}，有效期到2027年", "我的储蓄卡号码是{}。",
           "帮我记一下信用卡 {}", "工资卡是{}"]
for i in range(28):
    add(R.choice(EN_CARD).format(card_text()), "en", ["card"])
for i in range(20):
    add(R.choice(ZH_CARD).format(card_text()), "zh", ["card"])
# look-alikes of cards
for i in range(10):
    add(R.choice(["Order number {} has shipped.", "tracking {} shows it in Leipzig", "Invoice {} is due Friday.",
                  "my order {} arrives Monday", "Booking reference {} confirmed"]).format(card_text()), "en", [], "order number")
for i in range(8):
    add(R.choice(["订单号{}已发货", "快递单号 {}", "发票编号{}请查收", "运单号：{}"]).format(card()), "zh", [], "order number")
for i in range(8):
    add(R.choice(["call {} if the card is lost", "card {} (typo, one digit off)", "the number {} came from the form",
                  "银行卡号好像是{}，但不对"]).format(group(bad_luhn(card()))), R.choice(["en", "zh"]), [], "fails Luhn")
for i in range(6):
    n = R.choice("1789") + digits(15)
    add(R.choice(["Account id {} in the CRM", "student number {}", "会员号{}", "the barcode reads {}"]).format(n), "en" if R.random() < .6 else "zh", [], "16-digit id")

# --- IBAN
EN_IBAN = ["My IBAN is {}.", "please wire it to {}", "IBAN: {} (Sparkasse)", "refund to {} thanks",
           "bank account {} for the rent"]
ZH_IBAN = ["我的IBAN是{}", "请汇款到 {}", "德国账户 {}"]
for i in range(16):
    add(R.choice(EN_IBAN).format(iban_text()), "en", ["iban"])
for i in range(8):
    add(R.choice(ZH_IBAN).format(iban_text()), "zh", ["iban"])
for i in range(6):
    add(R.choice(["IBAN {} bounced, one digit is wrong", "the old IBAN {} is closed", "账户 {} 校验不对"]).format(bad_iban()),
        R.choice(["en", "zh"]), [], "bad checksum")
for i in range(6):
    add(R.choice(["flight LH{} gate B12", "model XY{} is out of stock", "part DE{} ships later", "航班 CA{} 延误了"]).format(digits(R.randint(4, 6)) + " " + digits(4)),
        "en", [], "code with letters")

# --- SSN
EN_SSN = ["My SSN is {}.", "social security number {}", "ssn: {} for the tax form", "SSN {} (don't share)",
          "my social is {}", "for the W-2, SSN = {}"]
for i in range(20):
    add(R.choice(EN_SSN).format(ssn()), "en", ["ssn"])
for i in range(4):
    add(R.choice(["我的美国社保号是{}", "社会安全号 {}"]).format(ssn()), "zh", ["ssn"])
for i in range(3):
    add("my ssn: " + ssn().replace("-", ""), "en", ["ssn"])
for i in range(10):
    add(R.choice(["Part number {} is back-ordered.", "ticket {} was closed", "case #{} escalated", "order {} refunded",
                  "model {} discontinued", "call {} tomorrow"]).format(ssn()), "en", [], "same shape, other number")
for i in range(6):
    add(R.choice(["the meeting is on {}", "released {}", "born {}", "deadline {}"]).format("%d-%02d-%02d" % (R.randint(1990, 2030), R.randint(1, 12), R.randint(1, 28))),
        "en", [], "date")
for i in range(4):
    add(R.choice(["ssn {} is not a valid one", "SSN 666-{}-{} was never issued"]).format(*(["000-%02d-%04d" % (R.randint(1, 99), R.randint(1, 9999))] if R.random() < .5 else ["%02d" % R.randint(1, 99), "%04d" % R.randint(1, 9999)])), "en", [], "not issued")

# --- Chinese resident id
ZH_ID = ["我的身份证号是{}", "身份证：{}", "身份证号码 {}，请帮我填表", "用我的身份证{}登记", "证件号{}"]
for i in range(20):
    add(R.choice(ZH_ID).format(cnid()), "zh", ["cn_id"])
for i in range(6):
    add(R.choice(["My Chinese ID number is {}.", "resident id {} for the visa"]).format(cnid()), "en", ["cn_id"])
for i in range(8):
    add(R.choice(["身份证号{}好像输错了", "这个号码{}校验位不对", "ID {} was rejected"]).format(cnid(False)), "zh", [], "bad check digit")
for i in range(8):
    add(R.choice(["订单号 {}", "快递单号 {}", "流水号{}", "交易编号 {}"]).format(R.choice(["2024", "2025", "7730", "9988"]) + digits(14)), "zh", [], "order number")

# --- phone with context
EN_PHONE = ["My phone number is {}.", "call me at {} after six", "my mobile: {}", "text me on {}",
            "you can reach me at {}", "cell {} (work)", "WhatsApp {} anytime"]
ZH_PHONE = ["我的手机号是{}", "联系电话：{}", "有事打给我 {}", "手机 {}，随时联系", "我的电话是{}"]
for i in range(18):
    add(R.choice(EN_PHONE).format(us_phone()), "en", ["phone"])
for i in range(16):
    add(R.choice(ZH_PHONE).format(cn_mobile() if R.random() < .7 else "0%d-%d" % (R.randint(10, 99), R.randint(20000000, 89999999))), "zh", ["phone"])
for i in range(10):
    add(R.choice(["Order {} shipped.", "the code is {}", "ref {} in the ticket", "version {} is out", "ID {}", "{} people attended"]).format(us_phone()), "en", [], "phone-like id")
for i in range(8):
    add(R.choice(["订单{}已签收", "编号{}", "会员卡 {}", "手机型号是 {}", "账号 {}"]).format(cn_mobile()), "zh", [], "phone-like id")
for i in range(6):
    add(R.choice(["my phone is an iPhone {} from {}", "I called the bank on {}-{}", "the phone cost {} yuan in {}"]).format(R.randint(11, 16), R.randint(2019, 2025)), "en", [], "phone words, no number")

# --- API keys
EN_KEY = ["my openai key is {}", "export API_KEY={}", "token {} for CI", "use {} to call the API",
          "here's the key: {}", "AWS access key {}", "the slack bot token is {}"]
ZH_KEY = ["我的API密钥是 {}", "密钥：{}", "用这个key调用：{}", "令牌 {} 别泄露"]
for i in range(22):
    add(R.choice(EN_KEY).format(api_key()), "en", ["api_key"])
for i in range(10):
    add(R.choice(ZH_KEY).format(api_key()), "zh", ["api_key"])
for t in ["I use scikit-learn and sk-video for the project", "sk-this-is-not-really-any-key-at-all", "AKIA is my cousin's nickname",
          "the task-runner-configuration-file is long", "ghp is short for something", "xoxo, see you tomorrow",
          "my sk-ii skincare set arrived", "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
          "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it", "uuid 123e4567-e89b-12d3-a456-426614174000",
          "我用的是sk-learn风格的API", "版本号 v2.14.3-beta.1"]:
    add(t, "zh" if any("\u4e00" <= c <= "\u9fff" for c in t) else "en", [], "key-like")

# --- PEM
for i in range(6):
    add(R.choice(["here is my key:\n{}\nthanks", "{}", "server key below\n{}"]).format(pem()), "en", ["private_key"])
for i in range(4):
    add(R.choice(["我的私钥：\n{}", "服务器私钥\n{}"]).format(pem()), "zh", ["private_key"])
for t in ["-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
          "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----",
          "I keep my private key on a hardware token.", "私钥要妥善保管，别发给别人"]:
    add(t, "zh" if "私钥" in t else "en", [], "key words, no key")

# --- JWT
for i in range(8):
    add(R.choice(["Authorization: Bearer {}", "token={}", "session token {} expires in an hour", "my jwt is {}"]).format(jwt()), "en", ["jwt"])
for i in range(4):
    add(R.choice(["我的令牌 {}", "登录token是{}"]).format(jwt()), "zh", ["jwt"])
for t in ["eyJhbGciOiJIUzI1NiJ9 alone is only a header", "a.b.c is not a token", "version 1.2.3-eyJ",
          "base64 aGVsbG8gd29ybGQ=", "the file name is report.final.v2.pdf"]:
    add(t, "en", [], "token-like")

# --- passwords
EN_PW = ["My wifi password is {}", "password: {}", "The password for my gmail account is {}.", "my password is '{}'",
         "the router password is {}", "laptop login password = {}", "Netflix password is {} btw", "my passcode is {}"]
for i in range(24):
    add(R.choice(EN_PW).format(password()), "en", ["password"])
for i in range(4):
    add(R.choice(["my bank PIN is {}", "PIN code: {}", "the door pin is {}"]).format(pin()), "en", ["password"])
ZH_PW = ["我家wifi密码是{}", "银行卡密码：{}", "邮箱的密码为 {}", "支付密码是 {}。", "电脑开机密码是{}", "路由器密码：{}", "我的QQ密码是{}"]
for i in range(22):
    add(R.choice(ZH_PW).format(password() if R.random() < .6 else pin()), "zh", ["password"])
for t in ["My password is too weak, I should change it.", "I forgot my password again.", "my password is expired",
          "the password is the name of my first dog", "Password is required for login.", "pin is in the drawer",
          "my password is stored in 1Password", "I reset my password yesterday", "my password is different for every site",
          "Is my password safe?", "the password manager is great", "use a strong password, please",
          "password reset links expire after 24 hours", "my password is long and random", "my password is compromised",
          "My wife knows the wifi password.", "the pin on the map shows the hotel"]:
    add(t, "en", [], "password talk")
for t in ["密码是什么来着？", "我的密码是我女儿的生日", "密码太简单了", "忘记密码了怎么办", "密码要定期更换", "wifi密码贴在冰箱上",
          "密码是由字母和数字组成的", "我把密码写在本子上了", "设置一个更复杂的密码", "支付密码被锁了", "口令不对，再试一次"]:
    add(t, "zh", [], "password talk")

# --- mixed and ordinary text
for t in ["I love jazz and green tea.", "My daughter was born on 2019-03-14.", "We moved to Berlin in 2021.",
          "Upgrade to Go 1.22.3 before Friday.", "The meeting is at 10:30 in room 4.12.", "I paid $1,299.99 for the laptop.",
          "Python 3.11.4 broke my build", "Call my mom on Sunday.", "My lucky numbers are 4 8 15 16 23 42.",
          "We have 1000000 users now", "The invoice total is 4111 dollars.", "release v2024.05.06 is live",
          "ISBN 978-3-16-148410-0 is the book", "the score was 21-17", "population 1,411,750,000",
          "I run 5 km every morning.", "our office phone is broken", "coordinates 52.5200, 13.4050"]:
    add(t, "en", [], "ordinary")
for t in ["我喜欢爵士乐和绿茶。", "我女儿2019年3月14日出生。", "明天上午10点开会", "这台电脑花了6999元", "我们搬到了上海浦东",
          "版本1.22.3修复了这个问题", "手机没电了", "我的幸运数字是8", "会议室在12楼", "订单已经发货了", "2024年5月6日星期一",
          "我每天早上跑5公里", "快递明天到", "我的工号是A1023"]:
    add(t, "zh", [], "ordinary")
# several at once
for i in range(6):
    add("My card is {} and my SSN is {}.".format(group(card("visa")), ssn()), "en", ["card", "ssn"])
for i in range(4):
    add("手机号{}，身份证{}".format(cn_mobile(), cnid()), "zh", ["cn_id", "phone"])

for row in lines:
    print(json.dumps(row, ensure_ascii=False))
