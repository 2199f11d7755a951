from __future__ import annotations

from typing import Literal, Optional

from pydantic import ConfigDict, Field, StrictBool

from lambdakit.model import Model
from lambdakit.validated import WebUrl

from ..accounts.phones import OptionalPhone


class RoleUpdate(Model):
    model_config = ConfigDict(extra="forbid")

    permissions: Optional[list[str]] = Field(None, max_length=64)
    reset: StrictBool = False
    version: Optional[int] = Field(None, ge=0)


StaffRole = Literal["admin", "super_admin", "project_admin", "reviewer"]
AnyRole = Literal["student", "admin", "super_admin", "project_admin", "reviewer"]


class UserCreate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    email: str = Field(min_length=3, max_length=254)
    password: str = Field(min_length=8, max_length=128)
    name: str = Field(min_length=1, max_length=100)
    role: StaffRole = "reviewer"
    phone: OptionalPhone = None


class UserUpdate(Model):
    """Fields staff may edit; email and role are not here (role has its own route)."""
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: Optional[str] = Field(None, min_length=1, max_length=100)
    phone: OptionalPhone = None  # null or "" clears it
    college: Optional[str] = Field(None, max_length=200)
    degree: Optional[str] = Field(None, max_length=100)
    branch: Optional[str] = Field(None, max_length=100)
    year_of_study: Optional[int] = Field(None, ge=1, le=10)
    graduation_year: Optional[int] = Field(None, ge=1950, le=2100)
    birthday: Optional[str] = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    gender: Optional[str] = Field(None, max_length=30)
    city: Optional[str] = Field(None, max_length=100)
    state: Optional[str] = Field(None, max_length=100)
    country: Optional[str] = Field(None, max_length=100)
    linkedin_url: Optional[WebUrl] = Field(None, max_length=300)
    github_url: Optional[WebUrl] = Field(None, max_length=300)
    avatar_url: Optional[WebUrl] = Field(None, max_length=1000)
    disabled: Optional[StrictBool] = None


class RoleChange(Model):
    model_config = ConfigDict(extra="forbid")

    role: AnyRole


LeadStatus = Literal["new", "contacted", "qualified", "converted", "lost"]


class LeadPatch(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    status: Optional[LeadStatus] = None
    notes: Optional[str] = Field(None, max_length=5000)


class LeadConvert(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    email: Optional[str] = Field(None, min_length=3, max_length=254)
    name: Optional[str] = Field(None, min_length=1, max_length=100)
    phone: OptionalPhone = None  # null or "": the lead's own phone


class FixAvatars(Model):
    model_config = ConfigDict(extra="ignore")

    dryRun: StrictBool = False
    limit: int = Field(1000, ge=1, le=5000)


# ---------------------------------------------------------------- OpenAPI: queries and responses (round 2)
from typing import Any  # noqa: E402

from ..admin_common.schemas import DateRange, ListQuery, Message, Ok, Out  # noqa: E402


class RoleView(Out):
    role: str
    permissions: list[str]
    defaults: list[str]
    customised: bool
    editable: bool
    version: int = Field(description="send it back with PUT for optimistic concurrency")
    updatedAt: Optional[str] = None
    updatedBy: Optional[str] = None


class RolesOut(Ok):
    roles: list[RoleView]
    permissions: list[str]


class RoleOut(Ok):
    role: RoleView


class ActivityQuery(ListQuery, DateRange):
    admin_id: str = ""
    action_type: str = ""
    entity_type: str = ""
    search: str = Field("", max_length=200)


class ActivityLog(Out):
    id: str
    admin_id: str
    action_type: str
    entity_type: str
    entity_id: str
    before: Optional[dict[str, Any]] = Field(None, description="the entity's changed attributes before (free-form)")
    after: Optional[dict[str, Any]] = Field(None, description="the entity's changed attributes after (free-form)")
    created_at: str


class UsersQuery(ListQuery):
    search: str = Field("", max_length=200)
    role: str = Field("", description="student|admin|super_admin|project_admin|reviewer")


class AdminUser(Out):
    """A user as staff see it: the profile (``UserUpdate``'s fields), never a secret (password hash,
    Google subject, search text)."""
    id: str
    email: str
    role: str
    name: Optional[str] = None
    phone: Optional[str] = None
    college: Optional[str] = None
    degree: Optional[str] = None
    branch: Optional[str] = None
    year_of_study: Optional[int] = None
    graduation_year: Optional[int] = None
    birthday: Optional[str] = None
    gender: Optional[str] = None
    city: Optional[str] = None
    state: Optional[str] = None
    country: Optional[str] = None
    linkedin_url: Optional[str] = None
    github_url: Optional[str] = None
    avatar_url: Optional[str] = None
    disabled: Optional[bool] = None
    email_verified: Optional[bool] = None
    open_enrollments: Optional[int] = Field(None, description="enrollments not cancelled or completed")
    invoice_count: Optional[int] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None


class UserOut(Ok):
    user: AdminUser


class UserBrief(Out):
    id: str
    name: Optional[str] = None
    email: str
    role: str


class ConvertedUser(UserBrief):
    phone: Optional[str] = None


class StudentsQuery(ListQuery):
    search: str = Field("", max_length=200)


class StudentBrief(Out):
    id: str
    name: Optional[str] = None
    email: str
    phone: Optional[str] = None
    college: Optional[str] = None
    city: Optional[str] = None
    created_at: Optional[str] = None
    avatar_url: Optional[str] = None


class FixAvatarsOut(Ok):
    matched: int
    updated: int
    dryRun: bool
    remaining: bool


class LeadsQuery(ListQuery, DateRange):
    domain: str = ""
    status: str = Field("", description="new|contacted|qualified|converted|lost")
    search: str = Field("", max_length=200)


class Lead(Out):
    id: str
    status: str
    type: Optional[str] = None
    source: Optional[str] = None
    name: Optional[str] = None
    email: Optional[str] = None
    phone: Optional[str] = None
    domain: Optional[str] = None
    duration: Optional[str] = None
    notes: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None
    updated_by: Optional[str] = None
    converted_at: Optional[str] = None
    converted_by: Optional[str] = None
    user_id: Optional[str] = Field(None, description="the student account a converted lead became")


class LeadOut(Ok):
    lead: Lead


class LeadConvertOut(Ok):
    lead: Lead
    user: ConvertedUser
    setPasswordLink: str
    expiresAt: str
    emailId: str


Deleted = Message  # {success, message}
