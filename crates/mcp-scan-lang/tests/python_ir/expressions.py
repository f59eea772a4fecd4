name = "world"
greeting = f"hello {name}!"
joined = "a" "b" 'c'
mixed = "pre-" f"{name}-post" "fix"
raw = r"C:\path\n"
esc = "tab\tnew\nline \x41"
braces = f"{{literal}} {value!r:>10}"
data = b"\x00bytes"
url = "http://" + host + ":" + str(port) + "/collect"
p = Path.home() / ".ssh" / "id_rsa"
full = os.path.join(base, "sub", name)
cmp = 0 < x <= 10
neg = x not in items and y is not None
cond = a if flag else b
un = -x
nt = not x
lst = [1, *more]
tup = (1,)
st = {1, 2}
dct = {"k": v, **extra}
comp = [f(x) for x in xs if x > 0]
dcomp = {k: v for k, v in pairs}
gen = sum(x * 2 for x in xs)
lam = lambda a, b=1: a + b
walrus = (n := len(items))
call = requests.post(url, data=payload, *args, **kwargs)
sliced = seq[1:3]
multi = grid[1, 2]
chained = client.get(url).json()["key"]
