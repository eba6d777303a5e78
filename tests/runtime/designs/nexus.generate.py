"""Sample data for the trimmed Nexus design: events and tasks spread over the 2024/2025 New Year."""

import random

STATUSES = ["BACKLOG", "TODO", "IN_PROGRESS", "DONE"]


def generate(seed: int, scale: float) -> dict[str, list[dict]]:
    rng = random.Random(seed)
    users = [f"usr_{n}" for n in range(2)]
    data: dict[str, list[dict]] = {"User": [], "Event": [], "Task": []}
    for n, user in enumerate(users):
        data["User"].append({"userId": user, "email": f"user{n}@example.com"})
        for i in range(int(12 * scale)):
            day = 20 + i % 12  # Dec 20 .. Dec 31, then January below
            month, year = (12, 2024) if day <= 31 else (1, 2025)
            start = f"{year}-{month:02d}-{day:02d}T{rng.randint(8, 18):02d}:00:00Z"
            data["Event"].append(
                {
                    "userId": user,
                    "eventId": f"evt_{i:04d}",
                    "title": f"event {i}",
                    "startUtc": start,
                    "endUtc": start.replace(":00:00Z", ":30:00Z"),
                    "startTzid": None,
                }
            )
        for i in range(int(16 * scale)):
            task = {
                "userId": user,
                "taskId": f"task_{i:04d}",
                "title": f"task {i}",
                "status": rng.choice(STATUSES),
                "priority": rng.randint(1, 5),
            }
            if i % 3:
                task["dueUtc"] = f"{2024 + i % 2}-{12 if i % 2 == 0 else 1:02d}-{10 + i:02d}T09:00:00Z"
            data["Task"].append(task)
    return data


def params(seed: int, scale: float) -> dict[str, list[dict]]:
    return {
        "agenda": [
            {"userId": "usr_0", "from": "2024-12-25T00:00:00Z", "to": "2025-01-20T00:00:00Z"},
            {"userId": "usr_1", "from": "2024-01-01T00:00:00Z", "to": "2025-12-31T23:59:59Z"},
        ],
        "user_items": [{"userId": "usr_0"}],
        "kanban_column": [{"userId": "usr_0", "status": s} for s in STATUSES[1:]],
        "first_urgent": [{"userId": "usr_0"}, {"userId": "usr_1"}],
    }
