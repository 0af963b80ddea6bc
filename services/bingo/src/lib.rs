//! Bingo: cards dealt from a server secret, ticked by activity or by calls, claims checked by the server
