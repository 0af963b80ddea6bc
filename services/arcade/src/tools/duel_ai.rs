//! `arcade car --duel-ai URL`: the team's fighting AI over HTTP, asked for each duel answer
//! exactly as the original master asked it (`GET URL?yourmoves=[…]&othermoves=[…]&cards=[…]`
//! → `{"res":[…]}`; the query and the reply are `arcade_race_master::duel_ai`). An AI that does
//! not answer, or answers something else, makes the car play an empty (illegal) answer: in the
//! rule book, any other reply is an illegal move and loses the duel.

use std::time::Duration;

use arcade_contracts::race::DuelQuestion;
use arcade_race_master::duel_ai::{DuelAdvisor, ai_url, parse_reply};

/// Time the AI has to answer (the master's deadline is usually 5 s).
const AI_TIMEOUT: Duration = Duration::from_secs(4);

/// A fighting AI at a URL.
#[derive(Debug, Clone)]
pub struct HttpDuelAi {
    url: reqwest::Url,
    client: reqwest::Client,
}

impl HttpDuelAi {
    /// The AI at `url` (http or https).
    pub fn new(url: reqwest::Url) -> anyhow::Result<HttpDuelAi> {
        if !matches!(url.scheme(), "http" | "https") {
            anyhow::bail!("--duel-ai {url}: the fighting AI is an http:// or https:// URL");
        }
        let client = reqwest::Client::builder()
            .timeout(AI_TIMEOUT)
            .build()
            .map_err(|e| anyhow::anyhow!("--duel-ai {url}: {e}"))?;
        Ok(HttpDuelAi { url, client })
    }

    async fn ask(&self, question: &DuelQuestion) -> Result<Vec<u8>, String> {
        let url = ai_url(self.url.as_str(), question);
        let response = self
            .client
            .get(&url)
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("GET {url}: {status}"));
        }
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        parse_reply(&body).map_err(|e| format!("GET {url}: {e}"))
    }
}

#[async_trait::async_trait]
impl DuelAdvisor for HttpDuelAi {
    async fn advise(&self, question: &DuelQuestion) -> Vec<u8> {
        match self.ask(question).await {
            Ok(cards) => cards,
            Err(error) => {
                eprintln!(
                    "warning: duel {}: the fighting AI failed ({error}); the car plays no card and loses the duel",
                    question.duel_id
                );
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests;
