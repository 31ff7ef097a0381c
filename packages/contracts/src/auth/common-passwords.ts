/**
 * The most used passwords of public breach lists (eight characters or more: shorter ones fail the
 * length rule anyway), compared case-insensitively. A small list on purpose: it stops the guesses
 * every attacker tries first without shipping a dictionary to the browser.
 */
const LIST = `
password password1 password12 password123 password1234 passw0rd p@ssw0rd p@ssword pa$$word
passwort motdepasse contrasena 12345678 123456789 1234567890 12345678910 0123456789 01234567
87654321 987654321 0987654321 11111111 111111111 1111111111 00000000 000000000 0000000000
22222222 33333333 44444444 55555555 66666666 77777777 88888888 99999999 12121212 11223344
12341234 123123123 123321123 12344321 123456abc 1234abcd abcd1234 abc12345 abcdefgh abcdefg1
abc123456 qwerty12 qwerty123 qwerty1234 qwertyui qwertyuiop qwerty123456 1q2w3e4r 1q2w3e4r5t
1q2w3e4r5t6y 1qaz2wsx 1qazxsw2 zaq12wsx zaq1zaq1 qazwsxedc qazwsx123 q1w2e3r4 q1w2e3r4t5
asdfghjk asdfghjkl asdf1234 asdfasdf zxcvbnm1 zxcvbnm123 zxcvbnma 123qweasd 123qweasdzxc
qweasdzxc 147258369 123654789 741852963 159753456 159357456 147852369 963852741 789456123
456789123 1234qwer qwer1234 iloveyou iloveyou1 iloveyou2 princess princess1 sunshine sunshine1
football football1 baseball basketball superman batman123 starwars trustno1 welcome1 welcome123
welcome12 letmein1 letmein123 admin123 admin1234 admin12345 administrator adminadmin
changeme changeme1 whatever computer michelle jennifer internet corvette mercedes mustang1
maverick liverpool chelsea1 arsenal1 manchester barcelona jordan23 michael1 charlie1 jessica1
ashley12 daniel12 matthew1 jasmine1 samantha anthony1 nicole12 babygirl babygirl1 lovely12
loveyou1 angel123 monkey12 monkey123 dragon12 dragon123 shadow12 master12 master123 killer12
freedom1 secret12 secret123 hello123 hello1234 helloworld test1234 test12345 testing1
testing123 tester12 google123 facebook 1password 1234password 12qwaszx blink182 pokemon1
naruto123 minecraft fuckyou1 fuckyou123 soccer12 hunter12 ranger12 buster12 thomas12
access14 flower12 summer12 summer2020 summer2021 summer2022 summer2023 summer2024 summer2025
winter2023 winter2024 spring2024 autumn2024 january1 february march2024 december1 october1
november iloveu123 trustme1 letmein! welcome! password! p4ssw0rd passw0rd1 pass1234
pass12345 password2 password3 passpass mypassword yourpassword newpassword mysecret
default1 default123 guest123 user1234 login123 root1234 toor1234 system123 server123
sms12345 smsconsole qwertyqwerty aaaaaaaa aaaaaaaaa abababab 1a2b3c4d a1b2c3d4 a1b2c3d4e5
zxcvbnmasdfghjkl 123456qwerty qwerty12345 123456789a 123456789q a123456789 q123456789
1234567a 1234567q a1234567 q1234567 12345qwert 12345abcde 1qaz1qaz 2wsx3edc !qaz2wsx
!q2w3e4r 1qaz@wsx p@ssw0rd1 p@ssw0rd123 p@55w0rd passw0rd123 welcome2024 welcome2025
company1 company123 changeit letmeinnow iloveyou! princess! football! superman1 batman12
`;

export const COMMON_PASSWORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter(Boolean));
