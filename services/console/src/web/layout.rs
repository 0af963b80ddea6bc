//! The HTML shell every page shares: the viewport (phones), the navigation to each registered
//! game, the operator's login form, the shared CSS and JS, the page's first frame (embedded as
//! JSON, so the page draws without another request) and the page's own script.

use serde_json::Value;

pub use arcade_runtime::web::escape_html as escape;

/// JSON that can sit inside a `<script>` element: only `</` could end it early, and JSON
/// allows `<\/` for it.
pub fn script_json(value: &Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/")
}

/// The page: `title`, `<body class>`, its first frame and its script (which defines
/// `render(view)`; `Console.live(render)` is called once the script has run).
pub fn shell(title: &str, body_class: &str, frame: &Value, script: &str) -> String {
    let mut nav = String::new();
    for game in crate::games::GAMES {
        if let Some((label, path)) = game.nav {
            nav.push_str(&format!(
                "<a href=\"{}\">{}</a>",
                escape(path),
                escape(label)
            ));
        }
    }
    let title = escape(title);
    let class = escape(body_class);
    let frame = script_json(frame);
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title} · Arcade</title>
<link rel="stylesheet" href="/console/console.css">
</head>
<body class="{class}" data-live="connecting">
<header class="bar">
<a class="brand" href="/">Arcade</a>
<nav>{nav}</nav>
<span class="live-dot" title="live updates"></span>
<form id="login" class="login" autocomplete="off">
<input id="login-token" type="password" placeholder="operator token" aria-label="operator token">
<button type="submit" id="login-submit">Log in</button>
<span id="login-state"></span>
<button type="button" id="logout">Log out</button>
</form>
</header>
<main>
<h1 id="title">{title}</h1>
<div id="page"></div>
</main>
<script type="application/json" id="frame">{frame}</script>
<script src="/console/console.js"></script>
<script>
{script}
Console.live(render);
</script>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_cannot_break_out_of_the_page() {
        assert_eq!(
            escape(r#"<b a="1">'&'"#),
            "&lt;b a=&quot;1&quot;&gt;&#39;&amp;&#39;"
        );
        let json = script_json(&serde_json::json!({"t": "</script><script>x()</script>"}));
        assert!(!json.contains("</"), "{json}");
        let back: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["t"], "</script><script>x()</script>");
    }
}
