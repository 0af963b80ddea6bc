//! Hints about the hidden achievements: every achievement is hidden at the start (the rule
//! book: "tous les achievements sont initialement cachés, des indices seront donnés en cours de
//! jeu"); one hint comes with every fifth turn, in [`HINT_ORDER`].

use arcade_contracts::race::HintPublished;

use super::event::Event;
use super::rules::{Achievement, AchievementRules};

/// A hint about a hidden achievement comes with every turn that is a multiple of this.
pub const HINT_EVERY_TURNS: u32 = 5;

/// The order the hints come in during the race (one every [`HINT_EVERY_TURNS`] turns): the
/// ones worth something first.
pub const HINT_ORDER: [Achievement; 13] = [
    Achievement::Pacifiste,
    Achievement::MadMax,
    Achievement::TriSelectif,
    Achievement::AsDuVolant,
    Achievement::PimpMyRide,
    Achievement::RapideCommeLEclair,
    Achievement::ArmeJusquAuxDents,
    Achievement::Stratege,
    Achievement::SnakesOnACar,
    Achievement::Picsou,
    Achievement::ClicClic,
    Achievement::PanneDEssence,
    Achievement::Ulysse31,
];

/// The hint the master publishes about it, in the rule book's language.
pub fn hint(achievement: Achievement) -> &'static str {
    match achievement {
        Achievement::MadMax => "Les pirates aussi peuvent perdre un duel.",
        Achievement::RapideCommeLEclair => "Huit moteurs sous le capot, et la piste défile.",
        Achievement::ArmeJusquAuxDents => "Huit armes ou plus quand on se bat : ça se remarque.",
        Achievement::SnakesOnACar => "Une casse cache parfois des passagers qui mordent.",
        Achievement::AsDuVolant => "Traverser un champ de mines sans une égratignure.",
        Achievement::Pacifiste => "Deux bolides qui se croisent sans vouloir se battre.",
        Achievement::TriSelectif => "Fouiller une casse et en ressortir avec un module.",
        Achievement::PimpMyRide => "Le garagiste aime les clients qui achètent.",
        Achievement::Stratege => "Gagner un duel avec trois armes de moins que l'adversaire.",
        Achievement::ClicClic => "Aller au combat sans aucune arme.",
        Achievement::PanneDEssence => "Un bolide sans moteur ne va pas loin.",
        Achievement::Ulysse31 => "Un bolide sans pilote est perdu dans l'espace.",
        Achievement::Picsou => "Une écurie qui amasse plus de 300 $.",
    }
}

/// The hint that comes with `turn`, if one does.
pub fn hint_of_turn(turn: u32) -> Option<Achievement> {
    if turn == 0 || !turn.is_multiple_of(HINT_EVERY_TURNS) {
        return None;
    }
    HINT_ORDER
        .get(usize::try_from(turn / HINT_EVERY_TURNS - 1).ok()?)
        .copied()
}

/// The fact of a hint about `achievement` coming with `turn`.
pub fn published(turn: u32, achievement: Achievement) -> Event {
    Event::HintPublished(HintPublished {
        turn,
        achievement,
        title: achievement.title().to_string(),
        hint: hint(achievement).to_string(),
    })
}
