"""The program's transformation: a status of twitter.json to a small summary."""


def summarize(status: dict) -> dict:
    user = status["user"]
    return {
        "id": status["id"],
        "user": user["screen_name"],
        "followers": user["followers_count"],
        "text": status["text"],
        "hashtags": [tag["text"] for tag in status["entities"]["hashtags"]],
        "mentions": [m["screen_name"] for m in status["entities"]["user_mentions"]],
        "retweets": status["retweet_count"],
    }
