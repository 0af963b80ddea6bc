//! The HTML shell every page shares: the viewport (phones), the navigation the games
//! registered, the operator's login form, the shared CSS and JS, the page's first frame (embedded as
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

/// The page's one inline script: its parts (which define `render(view)`), then
/// `Console.live(render)`. The page's `Content-Security-Policy` names it by its hash.
pub fn inline_script(parts: &[&str]) -> String {
    let mut script = String::from("\n");
    for part in parts {
        script.push_str(part);
        script.push('\n');
    }
    script.push_str("Console.live(render);\n");
    script
}

/// The page: `title`, `<body class>`, its first frame, its inline script ([`inline_script`])
/// and the navigation (`nav`: label and path).
pub fn shell(
    title: &str,
    body_class: &str,
    frame: &Value,
    script: &str,
    nav: &[(&str, &str)],
) -> String {
    let nav: String = nav
        .iter()
        .map(|(label, path)| format!("<a href=\"{}\">{}</a>", escape(path), escape(label)))
        .collect();
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
<script>{script}</script>
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
