//! What every page or endpoint a process serves to browsers needs the same way: escaping text
//! into HTML, and the `Host` names a server bound to an address answers to (a guard against DNS
//! rebinding: a page reached under another name is refused).

use std::net::SocketAddr;

/// Escapes text for HTML element content and attribute values (`&`, `<`, `>`, `"`, `'`).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The `Host` values a server bound to `bound` answers to: its address; on loopback or on every
/// address, `localhost`, `127.0.0.1` and `[::1]` with its port; and each of `hosts` (a name, or
/// `name:port`), a bare name also with the bound port. Compare them without case.
pub fn allowed_hosts(bound: SocketAddr, hosts: &[String]) -> Vec<String> {
    let port = bound.port();
    let mut allowed = vec![bound.to_string()];
    if bound.ip().is_loopback() || bound.ip().is_unspecified() {
        allowed.push(format!("localhost:{port}"));
        allowed.push(format!("127.0.0.1:{port}"));
        allowed.push(format!("[::1]:{port}"));
    }
    for host in hosts {
        allowed.push(host.clone());
        if !host.contains(':') {
            allowed.push(format!("{host}:{port}"));
        }
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped_and_other_text_kept() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & 'Jerry'</a> é"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt; é"
        );
    }

    #[test]
    fn a_loopback_server_answers_to_its_local_names_and_a_bare_name_gets_the_port() {
        let bound: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let allowed = allowed_hosts(bound, &["arcade.bar".into(), "x.y:443".into()]);
        assert_eq!(
            allowed,
            [
                "127.0.0.1:8080",
                "localhost:8080",
                "127.0.0.1:8080",
                "[::1]:8080",
                "arcade.bar",
                "arcade.bar:8080",
                "x.y:443",
            ]
        );
        let public: SocketAddr = "192.0.2.7:80".parse().unwrap();
        assert_eq!(allowed_hosts(public, &[]), ["192.0.2.7:80"]);
    }
}
